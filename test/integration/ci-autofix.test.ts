import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AutofixLedger } from "../../src/autofix/autofix-ledger.js";
import { BatchedEvents } from "../../src/autofix/batched-events.js";
import type { RunningProcess } from "../../src/main.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { RunLocks } from "../../src/threads/run-lock.js";
import { mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { waitForJob, findJob } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";
import { API, BASE, THREAD, checkRunEvent, ciFacts, head, neutralCheck, nextInstallation, pull, recordOurPr, startAutofixProcess } from "./ci-autofix-fixture.js";

// A red check on our PR: the gates in order, up to one ci_fix agent job. `@open-swe fix ci` and `autofix` are in
// ci-autofix-commands.test.ts, review feedback in ci-autofix-review.test.ts; the fixture is ci-autofix-fixture.ts.
describe("CI autofix: a red check on our PR becomes a fix run on the thread that opened it", () => {
  let proc: RunningProcess;
  let prefix: string;
  beforeAll(async () => {
    ({ proc, prefix } = await startAutofixProcess({ PERMISSION_CHECK_BUDGET_SECONDS: "1" }));
  });
  afterAll(async () => proc?.stop());

  const settings = () => new SettingsStore(testRedis(), prefix);
  const ourPr = (number: number) => recordOurPr(prefix, number);
  async function deliver(number: number, headSha: string) {
    const { payload, installationId } = checkRunEvent(number, headSha);
    mockInstallationToken(installationId);
    const res = await sendWebhook(proc.port!, { event: "check_run", payload });
    expect(res.status).toBe(200);
    return waitForJob(proc.queues.queues["ci-event"], deliveryJobId(res.deliveryId));
  }

  it("dispatches one ci_fix agent job on the originating thread naming the check and its log tail; a redelivery does not dispatch again", async () => {
    await ourPr(12);
    const sha = head();
    pull(12, sha);
    ciFacts(sha);
    const done = await deliver(12, sha);
    expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "dispatch", reason: "dispatched", attempt: 1, threadId: THREAD } });
    const agentJob = await findJob(proc.queues.queues.agent, (done.returnvalue as { agentJob: string }).agentJob);
    expect(agentJob?.data).toMatchObject({ threadId: THREAD, trigger: "ci_fix", number: 12, isPullRequest: true, requester: { login: "alice", id: 11 }, autofixHead: sha });
    expect(agentJob?.data.text).toContain("- lint (https://github.com/octo/hello/runs/55)");
    expect(agentJob?.data.text).toContain("error no-unused-vars");
    expect(agentJob?.data.text).not.toContain("Open SWE Review");

    pull(12, sha);
    ciFacts(sha, { logs: false });
    expect(await deliver(12, sha)).toMatchObject({ returnvalue: { outcome: "skip", reason: "max_attempts" } });
    expect(await proc.queues.queues.agent.count()).toBe(1);
    const decisions = await new AutofixLedger(testRedis(), prefix).decisions("octo/hello#12");
    expect(decisions.map((d) => d.reason)).toEqual(["max_attempts", "dispatched"]);
  });

  it("the per-PR toggle off stops it before any CI read", async () => {
    await ourPr(13);
    await settings().setAutofix("octo/hello#13", false);
    const sha = head();
    pull(13, sha);
    const check = neutralCheck(sha, "Autofix is off");
    expect(await deliver(13, sha)).toMatchObject({ returnvalue: { outcome: "skip", reason: "pr_disabled" } });
    expect(check.isDone()).toBe(true);
  });

  it("a PR no agent thread opened is skipped with no_agent_thread", async () => {
    const sha = head();
    pull(14, sha, "bob");
    expect(await deliver(14, sha)).toMatchObject({ returnvalue: { outcome: "skip", reason: "no_agent_thread" } });
  });

  it("at the cap (autofix.max_attempts, default 3) nothing is dispatched: a neutral check per head, one comment asking for a human", async () => {
    await ourPr(15);
    const ledger = new AutofixLedger(testRedis(), prefix);
    for (const h of ["1", "2", "3"]) expect(await ledger.claim("octo/hello#15", { fingerprint: h, headSha: h, maxAttempts: 3, ci: true, counts: true })).toBe("ok");
    const sha = head();
    pull(15, sha);
    ciFacts(sha, { logs: false });
    neutralCheck(sha, "Autofix limit reached");
    const comment = nock(API)
      .post("/repos/octo/hello/issues/15/comments", (b: { body: string }) => /^CI autofix limit reached — a human is needed\. I made 3 fix runs/.test(b.body))
      .reply(201, { id: 2 });
    expect(await deliver(15, sha)).toMatchObject({ returnvalue: { outcome: "skip", reason: "max_attempts", attempt: 3 } });
    expect(comment.isDone()).toBe(true);
    // A later push still red: its head gets the check; the comment is never repeated.
    const next = head();
    pull(15, next);
    ciFacts(next, { logs: false });
    const check = neutralCheck(next, "Autofix limit reached");
    const repeat = nock(API).post("/repos/octo/hello/issues/15/comments");
    repeat.reply(201, { id: 3 });
    expect(await deliver(15, next)).toMatchObject({ returnvalue: { outcome: "skip", reason: "max_attempts" } });
    expect(check.isDone()).toBe(true);
    expect(nock.pendingMocks()).toContain("POST https://api.github.com:443/repos/octo/hello/issues/15/comments");
    nock.removeInterceptor(repeat);
  });

  it("a person's commit on the head stops the loop", async () => {
    await ourPr(16);
    const sha = head();
    pull(16, sha);
    ciFacts(sha, { commitAuthor: "carol", logs: false });
    neutralCheck(sha, "Autofix stands back");
    expect(await deliver(16, sha)).toMatchObject({ returnvalue: { outcome: "skip", reason: "human_commit" } });
  });

  it("a check that is red on the base commit too is not the branch's doing: skipped with a neutral check, no fix run", async () => {
    await ourPr(17);
    const sha = head();
    pull(17, sha);
    ciFacts(sha, { logs: false, baseFailing: true });
    const check = neutralCheck(sha, "Failing on the base too");
    const before = await proc.queues.queues.agent.count();
    expect(await deliver(17, sha)).toMatchObject({ returnvalue: { outcome: "skip", reason: "all_failing_on_base" } });
    expect(check.isDone()).toBe(true);
    expect(await proc.queues.queues.agent.count()).toBe(before);
  });

  it("a repo that is not enabled costs no GitHub call", async () => {
    await settings().disableRepo("octo/hello");
    try {
      const { payload } = checkRunEvent(12, head());
      const res = await sendWebhook(proc.port!, { event: "check_run", payload });
      expect(await waitForJob(proc.queues.queues["ci-event"], deliveryJobId(res.deliveryId))).toMatchObject({ returnvalue: { outcome: "skip", reason: "repo_not_enabled" } });
    } finally {
      await settings().enableRepo("octo/hello");
    }
  });

  it("a thread whose run is active: the event is stored for after the run (no agent job, no attempt)", async () => {
    await ourPr(17);
    await proc.queues.queues.agent.add("agent", {}, { jobId: "busy-run", delay: 3600_000 });
    await new RunLocks(testRedis(), prefix, 60_000).acquire(THREAD, "busy-run");
    try {
      const sha = head();
      pull(17, sha);
      ciFacts(sha, { logs: false });
      const done = await deliver(17, sha);
      const agents = await proc.queues.queues.agent.count();
      expect(done).toMatchObject({ returnvalue: { outcome: "batch", reason: "batched", attempt: 0 } });
      expect(done.returnvalue).not.toHaveProperty("agentJob");
      expect(await proc.queues.queues.agent.count()).toBe(agents);
      expect(await new AutofixLedger(testRedis(), prefix).attempts("octo/hello#17", sha)).toEqual({ total: 0, onHead: 0 });
      expect(await new AutofixLedger(testRedis(), prefix).handled("octo/hello#17")).toEqual([]);
      const stored = await new BatchedEvents(testRedis(), prefix).take(THREAD);
      expect(stored).toMatchObject([{ fingerprint: `${sha}:lint`, event: { prNumbers: [17], headSha: sha } }]);
    } finally {
      await new RunLocks(testRedis(), prefix, 60_000).release(THREAD, "busy-run");
    }
  });

  it("checks still running on the head: waits, with one delayed re-check queued", async () => {
    await ourPr(18);
    const sha = head();
    pull(18, sha);
    ciFacts(sha, { pending: true, logs: false });
    const before = await proc.queues.queues["ci-event"].getDelayedCount();
    expect(await deliver(18, sha)).toMatchObject({ returnvalue: { outcome: "wait", reason: "checks_pending" } });
    expect(await proc.queues.queues["ci-event"].getDelayedCount()).toBe(before + 1);
  });

  it("a failing commit status (no PR in the event) finds its PR through the commit", async () => {
    await ourPr(19);
    const sha = head();
    const installation = nextInstallation();
    mockInstallationToken(installation);
    nock(API)
      .get(`/repos/octo/hello/commits/${sha}/pulls`)
      .reply(200, [{ number: 19, state: "open", body: "", user: { login: "open-swe[bot]" }, head: { sha, ref: "open-swe/19", repo: { full_name: "octo/hello" } }, base: { sha: BASE } }]);
    ciFacts(sha, { commitAuthor: "carol", logs: false });
    neutralCheck(sha, "Autofix stands back");
    const payload = {
      installation: { id: installation },
      repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
      sender: { login: "ci-bot", id: 3, type: "Bot" },
      sha,
      state: "failure",
      context: "ci/jenkins",
      target_url: "https://ci.example/1",
      branches: [{ name: "open-swe/19" }],
    };
    const res = await sendWebhook(proc.port!, { event: "status", payload });
    expect(await waitForJob(proc.queues.queues["ci-event"], deliveryJobId(res.deliveryId))).toMatchObject({
      returnvalue: { outcome: "skip", reason: "human_commit", pr: "octo/hello#19" },
    });
  });
});

describe("CI autofix: checks that never finish do not block it past AUTOFIX_SETTLE_MINUTES", () => {
  let proc: RunningProcess;
  let prefix: string;
  beforeAll(async () => {
    ({ proc, prefix } = await startAutofixProcess({ AUTOFIX_SETTLE_MINUTES: "0" }));
  });
  afterAll(async () => proc?.stop());

  it("decides with what failed by then: dispatches, no re-check queued", async () => {
    await recordOurPr(prefix, 30);
    const sha = head();
    const { payload, installationId } = checkRunEvent(30, sha);
    mockInstallationToken(installationId);
    pull(30, sha);
    ciFacts(sha, { pending: true });
    nock(API).get(`/repos/octo/hello/commits/${BASE}/check-runs`).query(true).reply(200, { total_count: 0, check_runs: [] });
    nock(API).get(`/repos/octo/hello/commits/${BASE}/status`).query(true).reply(200, { state: "success", statuses: [] });
    const res = await sendWebhook(proc.port!, { event: "check_run", payload });
    expect(await waitForJob(proc.queues.queues["ci-event"], deliveryJobId(res.deliveryId))).toMatchObject({ returnvalue: { outcome: "dispatch", reason: "dispatched" } });
    expect(await proc.queues.queues["ci-event"].getDelayedCount()).toBe(0);
  });
});
