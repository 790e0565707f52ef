import nock from "nock";
import { testSigner } from "../helpers/job-signer.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CiMonitorResult } from "../../src/autofix/ci-monitor.js";
import type { RunningProcess } from "../../src/main.js";
import { deliveryJobId, jobId } from "../../src/queue/job-ids.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { PrThreads } from "../../src/store/pr-threads.js";
import { failedCheckRunDelivery, mockInstallationToken, sendWebhook, nockJobLogs } from "../helpers/github-app.js";
import { waitForJob, findJob } from "../helpers/jobs.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

const API = "https://api.github.com";
const THREAD = "7a1c2f0e-8a55-4c1b-9d7e-3b2a1c0d9e8f";
const BASE = "b".repeat(40);
const INSTALLATION = 4401;
let seq = 0;
const head = () => (++seq).toString(16).padStart(40, "d");

const pull = (number: number, headSha: string, o: { mergeable_state?: string; state?: string } = {}) =>
  nock(API)
    .get(`/repos/octo/hello/pulls/${number}`)
    .reply(200, {
      number,
      state: o.state ?? "open",
      mergeable_state: o.mergeable_state ?? "clean",
      body: "Fixes it.",
      user: { login: "open-swe[bot]" },
      head: { sha: headSha, ref: `open-swe/${number}`, repo: { full_name: "octo/hello" } },
      base: { sha: BASE, ref: "main" },
    });
const redChecks = (headSha: string) => {
  nock(API)
    .get(`/repos/octo/hello/commits/${headSha}/check-runs`)
    .query(true)
    .reply(200, {
      total_count: 1,
      check_runs: [{ id: 55, name: "lint", status: "completed", conclusion: "failure", html_url: "https://github.com/octo/hello/runs/55", app: { slug: "github-actions" } }],
    });
  nock(API).get(`/repos/octo/hello/commits/${headSha}/status`).query(true).reply(200, { state: "success", statuses: [] });
};
const config = () => {
  nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
  nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
};
/** What a ci-event job reads for a red head after the PR. */
function ciFacts(headSha: string) {
  config();
  redChecks(headSha);
  nock(API).get(`/repos/octo/hello/commits/${BASE}/check-runs`).query(true).reply(200, { total_count: 0, check_runs: [] });
  nock(API).get(`/repos/octo/hello/commits/${BASE}/status`).query(true).reply(200, { state: "success", statuses: [] });
  nock(API)
    .get(`/repos/octo/hello/commits/${headSha}`)
    .reply(200, { sha: headSha, author: { login: "open-swe[bot]" } });
  nock(API)
    .get("/repos/octo/hello/check-runs/55")
    .reply(200, { id: 55, name: "lint", conclusion: "failure", app: { slug: "github-actions" }, output: {} });
  nockJobLogs(API, 55, "src/a.ts:3:1 error no-unused-vars\n");
}

/** The `ci-monitor` sweep over our open PRs, through the same decision and ledger as the webhooks. */
describe("CI monitor sweep", () => {
  let proc: RunningProcess;
  let prefix: string;
  let sweeps = 0;
  beforeAll(async () => {
    prefix = uniquePrefix();
    proc = await startTestProcess("all", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, JOB_ATTEMPTS: "1", CI_MONITOR_EVERY_SECONDS: "86400" });
    await proc.queues.queues.agent.pause();
    const settings = new SettingsStore(testRedis(), prefix);
    await settings.enableRepo("octo/hello");
    await settings.setProfile("alice", { autoFixCi: true });
  });
  afterAll(async () => proc?.stop());

  const ourPr = (number: number) =>
    new PrThreads(testRedis(), prefix, testSigner()).record({ owner: "octo", repo: "hello", number, branch: `open-swe/${number}` }, THREAD, { login: "alice", id: 11 }, INSTALLATION);
  async function sweep(): Promise<CiMonitorResult> {
    const id = jobId("test-sweep", ++sweeps);
    await proc.queues.add("ci-monitor", { reason: "manual" }, id, { via: "github-webhook" });
    const job = await waitForJob(proc.queues.queues["ci-monitor"], id);
    expect(job.state).toBe("completed");
    return job.returnvalue as CiMonitorResult;
  }
  const tokens = (n = 1) => mockInstallationToken(INSTALLATION, n);

  it("is scheduled every CI_MONITOR_EVERY_SECONDS", async () => {
    expect(await proc.queues.queues["ci-monitor"].getJobSchedulers()).toEqual(expect.arrayContaining([expect.objectContaining({ key: "ci-monitor-sweep", every: 86_400_000 })]));
  });

  it("a red head the webhook already handled is not enqueued again", async () => {
    await ourPr(30);
    const sha = head();
    tokens();
    pull(30, sha);
    ciFacts(sha);
    const res = await sendWebhook(proc.port!, failedCheckRunDelivery({ installationId: INSTALLATION, checkRunId: 55, name: "lint", headSha: sha, branch: "open-swe/30", pr: 30 }));
    expect(await waitForJob(proc.queues.queues["ci-event"], deliveryJobId(res.deliveryId))).toMatchObject({ returnvalue: { outcome: "dispatch" } });
    const ciEvents = await proc.queues.queues["ci-event"].count();
    pull(30, sha);
    redChecks(sha);
    expect(await sweep()).toMatchObject({ looked: 1, enqueued: 0, deduped: 1, errors: 0 });
    expect(await proc.queues.queues["ci-event"].count()).toBe(ciEvents);
    expect(await proc.queues.queues.agent.count()).toBe(1);
  });

  it("a red head no webhook reported becomes one fix run; the next sweep dedupes it", async () => {
    await ourPr(31);
    const sha = head();
    // PR 30 is red on its head and handled; PR 31's red is new.
    const sha30 = head();
    pull(30, sha30, { state: "closed" });
    pull(31, sha);
    redChecks(sha);
    // The enqueued ci-event job: the PR again, then the facts.
    pull(31, sha);
    ciFacts(sha);
    const result = await sweep();
    expect(result).toMatchObject({ looked: 2, enqueued: 1, deduped: 0, closed: 1, errors: 0 });
    const decided = await waitForJob(proc.queues.queues["ci-event"], result.jobs[0]!);
    expect(decided).toMatchObject({ state: "completed", returnvalue: { outcome: "dispatch", threadId: THREAD } });
    const agentJob = await findJob(proc.queues.queues.agent, (decided.returnvalue as { agentJob: string }).agentJob);
    expect(agentJob?.data).toMatchObject({ trigger: "ci_fix", number: 31, autofixHead: sha });
    // A closed PR is no longer watched; the handled red is deduped.
    pull(31, sha);
    redChecks(sha);
    expect(await sweep()).toMatchObject({ looked: 1, enqueued: 0, deduped: 1 });
  });

  it("a PR in conflict with its base dispatches one merge fix run, once per head and base", async () => {
    await ourPr(32);
    const sha = head();
    pull(32, sha, { mergeable_state: "dirty" });
    pull(31, head(), { state: "closed" });
    // The ci-event job for the conflict: PR, config, the head commit's author; no CI read.
    pull(32, sha, { mergeable_state: "dirty" });
    config();
    nock(API)
      .get(`/repos/octo/hello/commits/${sha}`)
      .reply(200, { sha, author: { login: "open-swe[bot]" } });
    const agentsBefore = await proc.queues.queues.agent.count();
    const result = await sweep();
    expect(result).toMatchObject({ enqueued: 1, closed: 1 });
    const decided = await waitForJob(proc.queues.queues["ci-event"], result.jobs[0]!);
    expect(decided).toMatchObject({ state: "completed", returnvalue: { outcome: "dispatch", reason: "dispatched", fingerprint: `conflict:${sha}:${BASE}` } });
    const agentJob = await findJob(proc.queues.queues.agent, (decided.returnvalue as { agentJob: string }).agentJob);
    expect(agentJob?.data).toMatchObject({ trigger: "ci_fix", number: 32, autofixBase: "main" });
    expect(agentJob?.data.autofixHead).toBeUndefined();
    expect(agentJob?.data.text).toMatch(/merge conflicts with its base branch `main`[\s\S]*git merge --no-ff origin\/main[\s\S]*run the tests[\s\S]*commit the merge and push/);
    expect(await proc.queues.queues.agent.count()).toBe(agentsBefore + 1);
    pull(32, sha, { mergeable_state: "dirty" });
    expect(await sweep()).toMatchObject({ looked: 1, enqueued: 0, deduped: 1 });
  });
});
