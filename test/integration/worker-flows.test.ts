import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { FollowUpQueue } from "../../src/threads/follow-ups.js";
import { RunLocks } from "../../src/threads/run-lock.js";
import { threadId } from "../../src/threads/thread-id.js";
import { mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { waitForJob } from "../helpers/jobs.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

const API = "https://api.github.com";
let installation = 100;

function commentEvent(body: string, login: string, opts: { pr?: boolean; number?: number } = {}) {
  installation += 1;
  return {
    installationId: installation,
    payload: {
      action: "created",
      installation: { id: installation },
      repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
      sender: { login, id: 7, type: "User" },
      issue: { number: opts.number ?? 5, id: 5005, ...(opts.pr === false ? {} : { pull_request: { url: "x" } }) },
      comment: { id: 900, body, user: { login, id: 7, type: "User" } },
    },
  };
}

const permission = (login: string, perm: string, role = perm) =>
  nock(API).get(`/repos/octo/hello/collaborators/${login}/permission`).reply(200, { permission: perm, role_name: role, user: { login } });

describe("workers: permission first, then the command", () => {
  let proc: RunningProcess;
  let prefix: string;
  beforeAll(async () => {
    prefix = uniquePrefix();
    proc = await startTestProcess("all", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, JOB_ATTEMPTS: "1" });
  });
  afterAll(async () => proc?.stop());

  it("a non-collaborator gets one polite reply and nothing runs", async () => {
    const { payload, installationId } = commentEvent("@open-swe delete everything", "mallory");
    mockInstallationToken(installationId);
    permission("mallory", "read");
    const reply = nock(API)
      .post("/repos/octo/hello/issues/5/comments", (b) => /Only people with write access/.test(b.body) && b.body.includes("@mallory"))
      .reply(201, { id: 1 });
    const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
    const done = await waitForJob(proc.queues.queues.agent, deliveryJobId(res.deliveryId));
    expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "refused" } });
    expect(reply.isDone()).toBe(true);
    expect(await new RunLocks(testRedis(), prefix, 1000).holder(threadId({ kind: "pr", owner: "octo", repo: "hello", number: 5 }))).toBeNull();
  });

  it("fails closed when the permission check errors", async () => {
    const { payload, installationId } = commentEvent("@open-swe autofix on", "erin");
    mockInstallationToken(installationId);
    nock(API).get("/repos/octo/hello/collaborators/erin/permission").reply(500, { message: "boom" });
    nock(API).post("/repos/octo/hello/issues/5/comments", (b) => /Only people with write access/.test(b.body)).reply(201, { id: 2 });
    const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
    expect(await waitForJob(proc.queues.queues.command, deliveryJobId(res.deliveryId))).toMatchObject({ returnvalue: { outcome: "refused" } });
    expect(await new SettingsStore(testRedis(), prefix).getAutofix("octo/hello#5")).toBeNull();
  });

  it("`autofix off` from a maintainer is stored per PR and acknowledged", async () => {
    const { payload, installationId } = commentEvent("@OpenSWE autofix OFF", "maria");
    mockInstallationToken(installationId);
    permission("maria", "write", "maintain");
    nock(API).post("/repos/octo/hello/issues/5/comments", (b) => /^Saved: CI autofix \*\*off\*\*.*not available yet/.test(b.body)).reply(201, { id: 3 });
    const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
    expect(await waitForJob(proc.queues.queues.command, deliveryJobId(res.deliveryId))).toMatchObject({ state: "completed" });
    expect(await new SettingsStore(testRedis(), prefix).getAutofix("OCTO/Hello#5")).toBe(false);
  });

  it("`autofix on` is saved but promises nothing: the reply says CI autofix is not available yet", async () => {
    const { payload, installationId } = commentEvent("@open-swe autofix on", "mira", { number: 8 });
    mockInstallationToken(installationId);
    permission("mira", "write", "maintain");
    const reply = nock(API)
      .post("/repos/octo/hello/issues/8/comments", (b: { body: string }) => /^Saved: CI autofix \*\*on\*\*/.test(b.body) && /not available yet/.test(b.body) && !/I will try/.test(b.body))
      .reply(201, { id: 4 });
    const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
    expect(await waitForJob(proc.queues.queues.command, deliveryJobId(res.deliveryId))).toMatchObject({ state: "completed" });
    expect(reply.isDone()).toBe(true);
    expect(await new SettingsStore(testRedis(), prefix).getAutofix("octo/hello#8")).toBe(true);
  });

  it("no CI-monitor sweep is scheduled while CI autofix does not exist", async () => {
    expect(await proc.queues.queues["ci-monitor"].getJobSchedulers()).toEqual([]);
    expect(await proc.queues.queues["ci-monitor"].count()).toBe(0);
  });

  it("a task on a thread with an active run becomes a follow-up, not a second run", async () => {
    const thread = threadId({ kind: "pr", owner: "octo", repo: "hello", number: 6 });
    await new RunLocks(testRedis(), prefix, 60_000).acquire(thread, "another-job");
    const { payload, installationId } = commentEvent("@open-swe also update the README", "walt", { number: 6 });
    mockInstallationToken(installationId);
    permission("walt", "admin");
    const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
    expect(await waitForJob(proc.queues.queues.agent, deliveryJobId(res.deliveryId))).toMatchObject({ returnvalue: { outcome: "follow_up", queued: 1 } });
    const { items } = await new FollowUpQueue(testRedis(), prefix, 20).drain(thread);
    expect(items.map((i) => [i.text, i.author])).toEqual([["also update the README", "walt"]]);
  });

  it("a task with no model API key fails at once, telling the user why", async () => {
    const { payload, installationId } = commentEvent("@open-swe add a CONTRIBUTING.md", "wanda", { number: 8, pr: false });
    mockInstallationToken(installationId);
    permission("wanda", "write");
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
    nock(API).post("/repos/octo/hello/issues/8/comments", (b) => /I can't start: .*needs ANTHROPIC_API_KEY/.test(b.body)).reply(201, { id: 4 });
    const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
    const done = await waitForJob(proc.queues.queues.agent, deliveryJobId(res.deliveryId));
    expect(done.state).toBe("failed");
    expect(done.failedReason).toMatch(/needs ANTHROPIC_API_KEY/);
    const thread = threadId({ kind: "issue", issueId: 5005 });
    expect(await new RunLocks(testRedis(), prefix, 1000).holder(thread)).toBeNull();
  });

  it("caches the permission answer briefly", async () => {
    const first = commentEvent("@open-swe help", "cora");
    mockInstallationToken(first.installationId);
    permission("cora", "write");
    nock(API).post("/repos/octo/hello/issues/5/comments").twice().reply(201, { id: 5 });
    const a = await sendWebhook(proc.port!, { event: "issue_comment", payload: first.payload });
    await waitForJob(proc.queues.queues.command, deliveryJobId(a.deliveryId));
    const second = commentEvent("@open-swe help", "cora");
    mockInstallationToken(second.installationId);
    const b = await sendWebhook(proc.port!, { event: "issue_comment", payload: second.payload });
    expect(await waitForJob(proc.queues.queues.command, deliveryJobId(b.deliveryId))).toMatchObject({ returnvalue: { outcome: "help" } });
  });
});

describe("workers: a CI-monitor sweep left by an older version", () => {
  it("is removed when the workers start, so nothing fails every 15 minutes", async () => {
    const prefix = uniquePrefix();
    const first = await startTestProcess("web", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix });
    await first.queues.queues["ci-monitor"].upsertJobScheduler("ci-monitor-sweep", { every: 900_000 }, { name: "sweep", data: { reason: "scheduled" } });
    expect(await first.queues.queues["ci-monitor"].getJobSchedulers()).toHaveLength(1);
    await first.stop();
    const proc = await startTestProcess("worker", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix });
    try {
      expect(await proc.queues.queues["ci-monitor"].getJobSchedulers()).toEqual([]);
    } finally {
      await proc.stop();
    }
  });
});
