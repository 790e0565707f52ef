import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { jobId } from "../../src/queue/job-ids.js";
import type { AgentJob } from "../../src/queue/schemas.js";
import { FollowUpQueue } from "../../src/threads/follow-ups.js";
import { RunLocks } from "../../src/threads/run-lock.js";
import { RUN_LOST_REPLY, type ReconcileResult } from "../../src/runs/reconcile.js";
import { RunRegistry } from "../../src/threads/run-registry.js";
import { mockInstallationToken } from "../helpers/github-app.js";
import { waitForJob, findJob, jobsEverywhere } from "../helpers/jobs.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";
import { testSigner } from "../helpers/job-signer.js";

const API = "https://api.github.com";
const INSTALLATION = 5501;
const run = (threadId: string, number: number): AgentJob => ({
  installationId: INSTALLATION,
  owner: "octo",
  repo: "hello",
  source: { kind: "github" },
  number,
  isPullRequest: false,
  threadId,
  trigger: "comment",
  requester: { login: "dana", id: 7 },
  text: "do the thing",
  verdictAuthorized: false,
  comment: { kind: "issue_comment", id: 900 + number },
  deliveryId: `d${number}`,
});

/** The hourly reconcile: runs whose lock expired and whose job is gone are ended with a reply. */
describe("reconcile sweep", () => {
  let proc: RunningProcess;
  let prefix: string;
  let n = 0;
  beforeAll(async () => {
    prefix = uniquePrefix();
    proc = await startTestProcess("all", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, JOB_ATTEMPTS: "1" });
    await proc.queues.queues.agent.pause();
    await proc.queues.queues.cleanup.pause();
  });
  afterAll(async () => proc?.stop());
  async function reconcile(): Promise<ReconcileResult> {
    const id = jobId("test-reconcile", ++n);
    await proc.queues.add("ci-monitor", { reason: "reconcile" }, id, { via: "github-webhook" });
    const job = await waitForJob(proc.queues.queues["ci-monitor"], id);
    expect(job.failedReason).toBeUndefined();
    return job.returnvalue as ReconcileResult;
  }

  it("is scheduled hourly next to the CI monitor", async () => {
    expect(await proc.queues.queues["ci-monitor"].getJobSchedulers()).toEqual(expect.arrayContaining([expect.objectContaining({ key: "reconcile-sweep", every: 3_600_000 })]));
  });

  it("a vanished run gets one reply, its stranded follow-ups a continuation; live runs are left alone; the sandbox sweep is queued", async () => {
    const registry = new RunRegistry(testRedis(), prefix, testSigner());
    const locks = new RunLocks(testRedis(), prefix, 60_000);
    const lost = "0a1c2f0e-8a55-4c1b-9d7e-3b2a1c0d9e01";
    const locked = "0a1c2f0e-8a55-4c1b-9d7e-3b2a1c0d9e02";
    const queued = "0a1c2f0e-8a55-4c1b-9d7e-3b2a1c0d9e03";
    // Gone: no BullMQ job, no lock. A message arrived for it that nobody will read.
    await registry.register("gone-job", run(lost, 41));
    await new FollowUpQueue(testRedis(), prefix, 20, testSigner()).push(lost, {
      text: "also fix the docs",
      author: "dana",
      source: "github",
      at: Date.now(),
      origin: { number: 41, isPullRequest: false, requester: { login: "dana", id: 7 } },
    });
    // Alive: holds its lock (a long model call), or its job is still waiting for a worker.
    await registry.register("locked-job", run(locked, 42));
    await locks.acquire(locked, "locked-job");
    await proc.queues.queues.agent.add("agent", run(queued, 43), { jobId: "queued-job", delay: 3600_000 });
    await registry.register("queued-job", run(queued, 43));

    mockInstallationToken(INSTALLATION);
    const reply = nock(API).post("/repos/octo/hello/issues/41/comments", { body: RUN_LOST_REPLY }).reply(201, { id: 1 });
    expect(await reconcile()).toMatchObject({ checked: 3, ended: 1, continued: 1, errors: 0 });
    expect(reply.isDone()).toBe(true);
    const continuation = await findJob(proc.queues.queues.agent, jobId("continue", lost, "gone-job"));
    expect(continuation?.data).toMatchObject({ threadId: lost, trigger: "follow_up", number: 41 });
    expect((await registry.list()).map((r) => r.jobId).sort()).toEqual(["locked-job", "queued-job"]);
    expect(await jobsEverywhere(proc.queues.queues.cleanup, ["waiting"])).toEqual(
      expect.arrayContaining([expect.objectContaining({ data: expect.objectContaining({ kind: "sweep", provenance: expect.objectContaining({ via: "system:reconcile", principal: null }) }) })]),
    );

    // Settled once: the next pass says nothing again.
    expect(await reconcile()).toMatchObject({ checked: 2, ended: 0, continued: 0, errors: 0 });
  });
});
