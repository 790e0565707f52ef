import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import type { RunningProcess } from "../../src/main.js";
import { JOB_REPLAYED } from "../../src/queue/consumed-jobs.js";
import { JOB_EXPIRED, NO_PROVENANCE } from "../../src/queue/job-provenance.js";
import { testSigner } from "../helpers/job-signer.js";
import { waitForJob } from "../helpers/jobs.js";
import { connectRedis } from "../../src/store/redis.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

/**
 * Issue #42 (Medium 3): a signed job is not a bearer token. Its signature holds for its own job id and
 * until its maximum age; once it ran to its end, the same job queued again is refused. Each refusal is
 * one line that says why, and nothing runs.
 */
describe("a signed job runs once, under its own id, while it is fresh", () => {
  let worker: RunningProcess;
  let raw: Queue;
  const prefix = uniquePrefix();
  const lines: { msg: string; jobId?: string; err?: string }[] = [];
  const failedLines = (id: string) => lines.filter((l) => l.msg === "job failed" && l.jobId === id);
  beforeAll(async () => {
    const log = createLogger("warn", "test", { write: (line: string) => void lines.push(JSON.parse(line)) });
    worker = await startTestProcess("worker", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, JOB_ATTEMPTS: "1" }, { queues: ["ci-monitor"], log });
    raw = new Queue("ci-monitor", { connection: connectRedis(redisUrl()), prefix });
  });
  afterAll(async () => {
    await raw?.close();
    await raw?.disconnect();
    await worker?.stop();
  });

  /** A real job the web tier or a timer queued: it runs and completes. */
  async function ranOnce(id: string) {
    await worker.queues.add("ci-monitor", { reason: "reconcile" }, id, { via: "system:reconcile" });
    const done = await waitForJob(worker.queues.queues["ci-monitor"], id);
    expect(done.state).toBe("completed");
    return (await raw.getJob(id))!;
  }

  it("(c) a copy under a new id, one re-added after completion, one moved back from completed: each refused with one line that says why", async () => {
    const first = await ranOnce("reconcile-once-1");
    await raw.add("reconcile", first.data, { jobId: "copied-under-new-id" });
    await first.remove();
    await raw.add("reconcile", first.data, { jobId: "reconcile-once-1" });
    const second = await ranOnce("reconcile-once-2");
    await second.retry("completed");

    const copied = await waitForJob(raw, "copied-under-new-id", 20_000);
    expect(copied.state).toBe("failed");
    expect(copied.failedReason).toContain(`${NO_PROVENANCE} (signature mismatch)`);
    for (const id of ["reconcile-once-1", "reconcile-once-2"]) {
      await expect.poll(async () => (await raw.getJob(id))?.failedReason, { timeout: 20_000 }).toBe(JOB_REPLAYED);
      expect(failedLines(id).map((l) => l.err)).toEqual([JOB_REPLAYED]);
    }
    expect(failedLines("copied-under-new-id")).toHaveLength(1);
  });

  it("(d) a job past its maximum age is refused, with when it was issued", async () => {
    const issued = Date.now() - 25 * 3600_000;
    const stale = testSigner().sign("ci-monitor", { jobId: "stale" }, { reason: "reconcile" }, "system:reconcile", null, { iat: issued });
    await raw.add("reconcile", stale, { jobId: "stale" });
    const done = await waitForJob(raw, "stale", 20_000);
    expect(done.state).toBe("failed");
    expect(done.failedReason).toContain(`${JOB_EXPIRED} (issued ${new Date(issued).toISOString()}`);
    expect(failedLines("stale")).toHaveLength(1);
  });
});
