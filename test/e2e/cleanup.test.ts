import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { readSandboxConfig } from "../../src/config/sandbox-config.js";
import { SANDBOX_SWEEP_SCHEDULER } from "../../jobs/cleanup.js";
import { ensureSandboxForThread, sandboxActivityKey, threadSandboxKey } from "../../src/sandbox/lifecycle.js";
import { createSandboxProvider } from "../../src/sandbox/registry.js";
import { FollowUpQueue } from "../../src/threads/follow-ups.js";
import { PrThreads } from "../../src/store/pr-threads.js";
import { threadId } from "../../src/shared/thread-id.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { sendWebhook } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";
import { testSigner } from "../helpers/job-signer.js";

describe("e2e: closing a PR tears its threads down", () => {
  let app: E2eApp;
  beforeAll(async () => {
    app = await startE2eApp(makeBareRemote("octo", "hello").template, "cleanup", { SANDBOX_IDLE_TTL_MINUTES: "60" });
  });
  afterAll(async () => app?.stop());

  it("destroys the agent and reviewer sandboxes and drops pending follow-ups", async () => {
    const redis = testRedis();
    const provider = createSandboxProvider(readSandboxConfig({ SANDBOX_ROOT: join(app.dataDir, "sandboxes") }));
    const threads = [threadId({ kind: "pr", owner: "octo", repo: "hello", number: 21 }), threadId({ kind: "reviewer", owner: "octo", repo: "hello", number: 21 })];
    const ids: string[] = [];
    for (const t of threads) {
      const { sandbox } = await ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix: app.prefix, threadId: t, provider, creationTimeoutMs: 30_000, cache: new Map() });
      ids.push(sandbox.id);
    }
    await new FollowUpQueue(redis, app.prefix, 10, testSigner()).push(threads[0]!, { text: "also this", author: "a", source: "github", at: 1 });
    expect((await provider.list()).map((s) => s.id)).toEqual(expect.arrayContaining(ids));

    const res = await sendWebhook(app.proc.port!, {
      event: "pull_request",
      payload: {
        action: "closed",
        installation: { id: 6001 },
        repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
        sender: { login: "alice", id: 1, type: "User" },
        pull_request: { number: 21, merged: true, head: { sha: "abc", ref: "open-swe/x" }, user: { login: "alice", type: "User" } },
      },
    });
    expect(res.status).toBe(200);
    const done = await waitForJob(app.proc.queues.queues.cleanup, deliveryJobId(res.deliveryId));
    expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "cleaned", threads: 2, droppedFollowUps: 1 } });
    expect((done.returnvalue as { destroyed: string[] }).destroyed.sort()).toEqual([...ids].sort());
    const left = (await provider.list()).map((s) => s.id);
    for (const id of ids) expect(left).not.toContain(id);
    for (const t of threads) expect(await redis.get(threadSandboxKey(app.prefix, t))).toBeNull();
  });

  it("closing an issue tears its thread down; closing the PR the agent opened from it does not", async () => {
    const redis = testRedis();
    const provider = createSandboxProvider(readSandboxConfig({ SANDBOX_ROOT: join(app.dataDir, "sandboxes") }));
    const issueThread = threadId({ kind: "issue", issueId: 7001 });
    const { sandbox } = await ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix: app.prefix, threadId: issueThread, provider, creationTimeoutMs: 30_000, cache: new Map() });
    await new PrThreads(redis, app.prefix, testSigner()).record({ owner: "octo", repo: "hello", number: 31, branch: "open-swe/issue-5" }, issueThread);
    await new FollowUpQueue(redis, app.prefix, 10, testSigner()).push(issueThread, { text: "and docs", author: "a", source: "github", at: 1 });
    const repository = { name: "hello", full_name: "octo/hello", owner: { login: "octo" } };
    const sender = { login: "alice", id: 1, type: "User" };

    const prClosed = await sendWebhook(app.proc.port!, {
      event: "pull_request",
      payload: {
        action: "closed",
        installation: { id: 6001 },
        repository,
        sender,
        pull_request: { number: 31, merged: false, head: { sha: "def", ref: "open-swe/issue-5" }, user: { login: "open-swe[bot]", type: "Bot" } },
      },
    });
    expect(prClosed.status).toBe(200);
    expect(await waitForJob(app.proc.queues.queues.cleanup, deliveryJobId(prClosed.deliveryId))).toMatchObject({ state: "completed", returnvalue: { destroyed: [] } });
    expect(await redis.get(threadSandboxKey(app.prefix, issueThread))).toBe(sandbox.id);
    expect((await provider.list()).map((s) => s.id)).toContain(sandbox.id);

    const issueClosed = await sendWebhook(app.proc.port!, {
      event: "issues",
      payload: { action: "closed", installation: { id: 6001 }, repository, sender, issue: { id: 7001, number: 5, title: "t", body: "", labels: [], state: "closed" } },
    });
    expect(issueClosed.status).toBe(200);
    const done = await waitForJob(app.proc.queues.queues.cleanup, deliveryJobId(issueClosed.deliveryId));
    expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "cleaned", threads: 1, droppedFollowUps: 1, destroyed: [sandbox.id] } });
    expect((await provider.list()).map((s) => s.id)).not.toContain(sandbox.id);
    expect(await redis.get(threadSandboxKey(app.prefix, issueThread))).toBeNull();
  });

  it("the worker schedules the lifecycle sweep; a sweep destroys a sandbox idle past SANDBOX_IDLE_TTL_MINUTES", async () => {
    const cleanup = app.proc.queues.queues.cleanup;
    // A local-sandbox worker is a host: it sweeps its own disk on a schedule in its own queue, none is shared.
    const hostId = (await readFile(join(app.dataDir, "sandboxes", ".host-id"), "utf8")).trim();
    expect(await app.proc.queues.hostQueue("cleanup", hostId).getJobScheduler(SANDBOX_SWEEP_SCHEDULER)).toMatchObject({ every: 5 * 60_000, template: { data: { kind: "sweep" } } });
    expect(await cleanup.getJobScheduler(SANDBOX_SWEEP_SCHEDULER)).toBeUndefined();
    const redis = testRedis();
    const provider = createSandboxProvider(readSandboxConfig({ SANDBOX_ROOT: join(app.dataDir, "sandboxes") }));
    const [idle, active] = [threadId({ kind: "issue", issueId: 8001 }), threadId({ kind: "issue", issueId: 8002 })];
    const made = [];
    for (const t of [idle, active])
      made.push((await ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix: app.prefix, threadId: t, provider, creationTimeoutMs: 30_000, cache: new Map() })).sandbox.id);
    await redis.zadd(sandboxActivityKey(app.prefix), Date.now() - 61 * 60_000, idle);

    await app.proc.queues.add("cleanup", { kind: "sweep" }, "sweep-now", { via: "github-webhook" });
    const done = await waitForJob(cleanup, "sweep-now");
    expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "swept", idle: [made[0]], orphans: [] } });
    const left = (await provider.list()).map((s) => s.id);
    expect(left).not.toContain(made[0]);
    expect(left).toContain(made[1]);
  });
});
