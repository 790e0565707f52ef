import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { deliveryJobId, jobId } from "../../src/queue/job-ids.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { FollowUpQueue } from "../../src/threads/follow-ups.js";
import { PrThreads } from "../../src/store/pr-threads.js";
import { RunLocks } from "../../src/threads/run-lock.js";
import { ThreadModelStore } from "../../src/threads/thread-model-store.js";
import { threadId } from "../../src/shared/thread-id.js";
import { mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { waitForJob, jobsEverywhere } from "../helpers/jobs.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";
import { testSigner } from "../helpers/job-signer.js";

const API = "https://api.github.com";
let installation = 100;

function commentEvent(body: string, login: string, opts: { pr?: boolean; number?: number; issueId?: number } = {}) {
  installation += 1;
  return {
    installationId: installation,
    payload: {
      action: "created",
      installation: { id: installation },
      repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
      sender: { login, id: 7, type: "User" },
      issue: { number: opts.number ?? 5, id: opts.issueId ?? 5005, ...(opts.pr === false ? {} : { pull_request: { url: "x" } }) },
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
    proc = await startTestProcess("all", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, JOB_ATTEMPTS: "1", PERMISSION_CHECK_BUDGET_SECONDS: "3" });
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

  it("GitHub failing the permission check is not a refusal: retried within the budget, then the reply says GitHub could not be reached", async () => {
    const { payload, installationId } = commentEvent("@open-swe autofix on", "erin");
    mockInstallationToken(installationId);
    // A 3 s budget (set above; a 1 s one let a slow answer on a loaded machine refuse the other cases): a 502, then
    // resets on every later attempt (0.5 s, then 1 s backoff), until the next backoff would pass the budget.
    nock(API).get("/repos/octo/hello/collaborators/erin/permission").reply(502, { message: "Bad Gateway" });
    nock(API).get("/repos/octo/hello/collaborators/erin/permission").replyWithError({ code: "ECONNRESET", message: "socket hang up" }).persist();
    const reply = nock(API)
      .post("/repos/octo/hello/issues/5/comments", (b) => /could not reach GitHub/.test(b.body) && !/Only people with write access/.test(b.body))
      .reply(201, { id: 2 });
    const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
    const done = await waitForJob(proc.queues.queues.command, deliveryJobId(res.deliveryId));
    expect(done).toMatchObject({ state: "failed", failedReason: expect.stringMatching(/GitHub could not be reached to check write access \([23] attempts\)/) });
    expect(reply.isDone()).toBe(true);
    expect(await new SettingsStore(testRedis(), prefix).getAutofix("octo/hello#5")).toBeNull();
  });

  it("a 5xx followed by a real answer is the answer", async () => {
    const { payload, installationId } = commentEvent("@open-swe help", "ezra");
    mockInstallationToken(installationId);
    nock(API).get("/repos/octo/hello/collaborators/ezra/permission").reply(503, { message: "unavailable" });
    permission("ezra", "write");
    nock(API)
      .post("/repos/octo/hello/issues/5/comments", (b) => !/write access|could not reach/.test(b.body))
      .reply(201, { id: 5 });
    const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
    expect(await waitForJob(proc.queues.queues.command, deliveryJobId(res.deliveryId))).toMatchObject({ state: "completed", returnvalue: { outcome: "help" } });
  });

  it("`autofix off` from a maintainer is stored per PR and acknowledged", async () => {
    const { payload, installationId } = commentEvent("@OpenSWE autofix OFF", "maria");
    mockInstallationToken(installationId);
    permission("maria", "write", "maintain");
    nock(API)
      .post("/repos/octo/hello/issues/5/comments", (b) => /^CI autofix is \*\*off\*\* for this pull request: I will not try/.test(b.body))
      .reply(201, { id: 3 });
    const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
    expect(await waitForJob(proc.queues.queues.command, deliveryJobId(res.deliveryId))).toMatchObject({ state: "completed" });
    expect(await new SettingsStore(testRedis(), prefix).getAutofix("OCTO/Hello#5")).toBe(false);
  });

  it("`autofix on` on a PR we did not open is saved but promises nothing there", async () => {
    const { payload, installationId } = commentEvent("@open-swe autofix on", "mira", { number: 8 });
    mockInstallationToken(installationId);
    permission("mira", "write", "maintain");
    const reply = nock(API)
      .post("/repos/octo/hello/issues/8/comments", (b: { body: string }) => /^Saved: CI autofix \*\*on\*\*/.test(b.body) && /no record of opening this one, so nothing will happen/.test(b.body))
      .reply(201, { id: 4 });
    const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
    expect(await waitForJob(proc.queues.queues.command, deliveryJobId(res.deliveryId))).toMatchObject({ state: "completed" });
    expect(reply.isDone()).toBe(true);
    expect(await new SettingsStore(testRedis(), prefix).getAutofix("octo/hello#8")).toBe(true);
  });

  it("`autofix on` on a PR our agent opened says what it now does", async () => {
    await new PrThreads(testRedis(), prefix, testSigner()).record({ owner: "octo", repo: "hello", number: 9, branch: "open-swe/x" }, threadId({ kind: "issue", issueId: 9009 }), {
      login: "milo",
      id: 7,
    });
    const { payload, installationId } = commentEvent("@open-swe autofix on", "milo", { number: 9 });
    mockInstallationToken(installationId);
    permission("milo", "write", "maintain");
    const reply = nock(API)
      .post("/repos/octo/hello/issues/9/comments", (b: { body: string }) => /^CI autofix is \*\*on\*\* for this pull request: when one of its checks fails, I try to fix it/.test(b.body))
      .reply(201, { id: 6 });
    const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
    expect(await waitForJob(proc.queues.queues.command, deliveryJobId(res.deliveryId))).toMatchObject({ state: "completed" });
    expect(reply.isDone()).toBe(true);
    expect(await new SettingsStore(testRedis(), prefix).getAutofix("octo/hello#9")).toBe(true);
  });

  it("the CI-monitor sweep is scheduled every CI_MONITOR_EVERY_SECONDS (default 600)", async () => {
    expect(await proc.queues.queues["ci-monitor"].getJobSchedulers()).toEqual(expect.arrayContaining([expect.objectContaining({ key: "ci-monitor-sweep", every: 600_000 })]));
  });

  it("a task on a thread with an active run becomes a follow-up, not a second run", async () => {
    const thread = threadId({ kind: "pr", owner: "octo", repo: "hello", number: 6 });
    // The holder is a real job BullMQ still has (a lock of a job it gave up on is taken over, below).
    await proc.queues.queues.agent.add("agent", {}, { jobId: "another-job", delay: 3600_000 });
    await new RunLocks(testRedis(), prefix, 60_000).acquire(thread, "another-job");
    const { payload, installationId } = commentEvent("@open-swe also update the README", "walt", { number: 6 });
    mockInstallationToken(installationId);
    permission("walt", "admin");
    const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
    expect(await waitForJob(proc.queues.queues.agent, deliveryJobId(res.deliveryId))).toMatchObject({ returnvalue: { outcome: "follow_up", queued: 1 } });
    const items = await new FollowUpQueue(testRedis(), prefix, 20, testSigner()).drain(thread);
    expect(items.map((i) => [i.text, i.author])).toEqual([["also update the README", "walt"]]);
  });

  it("a message past the thread's follow-up cap is not queued and its sender is told so; what was queued stays", async () => {
    const thread = threadId({ kind: "pr", owner: "octo", repo: "hello", number: 16 });
    await proc.queues.queues.agent.add("agent", {}, { jobId: "busy-job", delay: 3600_000 });
    await new RunLocks(testRedis(), prefix, 60_000).acquire(thread, "busy-job");
    const queue = new FollowUpQueue(testRedis(), prefix, 20, testSigner());
    for (let i = 0; i < 20; i++) expect((await queue.push(thread, { text: `m${i}`, author: "walt", source: "github", at: i })).queued).toBe(true);
    const { payload, installationId } = commentEvent("@open-swe one more thing", "wilma", { number: 16 });
    mockInstallationToken(installationId);
    permission("wilma", "write");
    const bodies: string[] = [];
    const reply = nock(API)
      .post("/repos/octo/hello/issues/16/comments", (b: { body: string }) => (bodies.push(b.body), true))
      .reply(201, { id: 1 });
    const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
    expect(await waitForJob(proc.queues.queues.agent, deliveryJobId(res.deliveryId))).toMatchObject({ returnvalue: { outcome: "follow_up_refused", waiting: 20 } });
    expect(reply.isDone()).toBe(true);
    expect(bodies).toEqual(["This thread's run already has 20 messages waiting for it, so I did not take this one. Send it again once the run has finished."]);
    expect((await queue.drain(thread)).map((i) => i.text)).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`));
  });

  it("a run lock whose job BullMQ gave up on (failed, e.g. stalled too often) is taken over, not waited out", async () => {
    const thread = threadId({ kind: "issue", issueId: 5015 });
    const dead = await proc.queues.queues.agent.add("agent", { not: "a valid payload" }, { jobId: "dead-job", attempts: 1 });
    await waitForJob(proc.queues.queues.agent, dead.id!);
    await new RunLocks(testRedis(), prefix, 60_000).acquire(thread, "dead-job");
    const { payload, installationId } = commentEvent("@open-swe add a CONTRIBUTING.md", "wendell", { number: 18, pr: false, issueId: 5015 });
    mockInstallationToken(installationId);
    permission("wendell", "write");
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
    nock(API)
      .post("/repos/octo/hello/issues/18/comments", (b) => /I can't start/.test(b.body))
      .reply(201, { id: 4 });
    const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
    // It ran (and stopped for want of a model key) instead of queueing behind a lock nobody will release.
    expect(await waitForJob(proc.queues.queues.agent, deliveryJobId(res.deliveryId))).toMatchObject({ state: "failed", failedReason: expect.stringMatching(/ANTHROPIC_API_KEY/) });
    expect(await new RunLocks(testRedis(), prefix, 1000).holder(thread)).toBeNull();
  });

  it("`--model` sets the thread's model for its runs (highest precedence); a model not allowed gets one reply listing those that are", async () => {
    const thread = threadId({ kind: "issue", issueId: 5025 });
    const refused = commentEvent("@open-swe --model gpt-9000 fix the build", "wade", { number: 25, pr: false, issueId: 5025 });
    mockInstallationToken(refused.installationId);
    permission("wade", "write");
    const list = nock(API)
      .post("/repos/octo/hello/issues/25/comments", (b) => /can't use the model `gpt-9000`/.test(b.body) && b.body.includes("`claude-sonnet-4-6`") && b.body.includes("`openai:gpt-5`"))
      .reply(201, { id: 6 });
    const r1 = await sendWebhook(proc.port!, { event: "issue_comment", payload: refused.payload });
    expect(await waitForJob(proc.queues.queues.agent, deliveryJobId(r1.deliveryId))).toMatchObject({ state: "completed", returnvalue: { outcome: "model_refused" } });
    expect(list.isDone()).toBe(true);
    expect(await new ThreadModelStore(testRedis(), prefix).get(thread)).toBeNull();

    // The requester's profile names another model: the thread's request wins.
    await new SettingsStore(testRedis(), prefix).setProfile("wade", { model: "claude-sonnet-4-5" });
    const chosen = commentEvent("@open-swe --model claude-opus-4-8 fix the build", "wade", { number: 25, pr: false, issueId: 5025 });
    mockInstallationToken(chosen.installationId);
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
    const used = nock(API)
      .post("/repos/octo/hello/issues/25/comments", (b) => /model anthropic:claude-opus-4-8 needs ANTHROPIC_API_KEY/.test(b.body))
      .reply(201, { id: 7 });
    const r2 = await sendWebhook(proc.port!, { event: "issue_comment", payload: chosen.payload });
    expect(await waitForJob(proc.queues.queues.agent, deliveryJobId(r2.deliveryId))).toMatchObject({ state: "failed" });
    expect(used.isDone()).toBe(true);
    expect(await new ThreadModelStore(testRedis(), prefix).get(thread)).toBe("anthropic:claude-opus-4-8");
  });

  it("a run BullMQ gave up on (stalled more than allowed) has its lock released and its pending follow-up continued once", async () => {
    const thread = threadId({ kind: "issue", issueId: 5035 });
    const dead = "stalled-run";
    const installationId = 9035;
    // What a worker killed mid-run leaves: the thread's lock, and a message that arrived meanwhile.
    await new RunLocks(testRedis(), prefix, 60_000).acquire(thread, dead);
    await new FollowUpQueue(testRedis(), prefix, 20, testSigner()).push(thread, {
      text: "also check the docs",
      author: "wes",
      source: "github",
      at: 1,
      origin: { number: 35, isPullRequest: false, requester: { login: "wes", id: 7 }, comment: { kind: "issue_comment", id: 935 } },
    });
    const data = {
      installationId,
      owner: "octo",
      repo: "hello",
      number: 35,
      isPullRequest: false,
      threadId: thread,
      trigger: "comment" as const,
      requester: { login: "wes", id: 7 },
      text: "fix it",
      deliveryId: dead,
    };
    await proc.queues.add("agent", data, dead, { delay: 300, via: "github-webhook" });
    // BullMQ 6 marks a job stalled past maxStalledCount this way; the next worker to take it fails it.
    await testRedis().hset(`${prefix}:agent:${dead}`, "defa", "job stalled more than allowable limit");
    // The continuation runs (and stops for want of a model key, answering where the follow-up was asked).
    mockInstallationToken(installationId);
    permission("wes", "write");
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
    const answered = nock(API)
      .post("/repos/octo/hello/issues/35/comments", (b) => /I can't start/.test(b.body))
      .reply(201, { id: 8 });
    expect(await waitForJob(proc.queues.queues.agent, dead)).toMatchObject({ state: "failed", failedReason: "job stalled more than allowable limit" });
    const continuation = jobId("continue", thread, dead);
    expect(await waitForJob(proc.queues.queues.agent, continuation)).toMatchObject({ state: "failed", failedReason: expect.stringMatching(/ANTHROPIC_API_KEY/) });
    expect(answered.isDone()).toBe(true);
    expect(await new RunLocks(testRedis(), prefix, 1000).holder(thread)).toBeNull();
    // A failed continuation starts no other: no chain of runs failing the same way.
    await new Promise((r) => setTimeout(r, 300));
    const others = (await jobsEverywhere(proc.queues.queues.agent, ["waiting", "active", "delayed", "completed", "failed"])).filter(
      (j) => j.data.threadId === thread && j.id !== dead && j.id !== continuation,
    );
    expect(others).toEqual([]);
  });

  it("a task with no model API key fails at once, telling the user why", async () => {
    const { payload, installationId } = commentEvent("@open-swe add a CONTRIBUTING.md", "wanda", { number: 8, pr: false });
    mockInstallationToken(installationId);
    permission("wanda", "write");
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
    nock(API)
      .post("/repos/octo/hello/issues/8/comments", (b) => /I can't start: .*needs ANTHROPIC_API_KEY/.test(b.body))
      .reply(201, { id: 4 });
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

describe("workers: a CI-monitor sweep registered by an older version", () => {
  it("is replaced by one at CI_MONITOR_EVERY_SECONDS when the workers start", async () => {
    const prefix = uniquePrefix();
    const first = await startTestProcess("web", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix });
    await first.queues.queues["ci-monitor"].upsertJobScheduler("ci-monitor-sweep", { every: 900_000 }, { name: "sweep", data: { reason: "scheduled" } });
    await first.stop();
    const proc = await startTestProcess("worker", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, CI_MONITOR_EVERY_SECONDS: "120" });
    try {
      expect(await proc.queues.queues["ci-monitor"].getJobSchedulers()).toEqual(expect.arrayContaining([expect.objectContaining({ key: "ci-monitor-sweep", every: 120_000 })]));
    } finally {
      await proc.stop();
    }
  });
});
