import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { QueueSet } from "../../src/queue/queues.js";
import { connectRedis } from "../../src/store/redis.js";
import { readConfig } from "../../src/config/env.js";
import { SHUTDOWN_REASON, startWorkers, type WorkerPool } from "../../src/worker/start-workers.js";
import type { WorkerServices } from "../../src/worker/job-context.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";
import { startPrivateRedis, type PrivateRedis } from "../helpers/private-redis.js";
import { startTestProcess } from "../helpers/test-process.js";

const GRACE_MS = 500;
/** The documented bound: a stop returns within the grace plus 5 s. */
const withinBound = <T>(p: Promise<T>) =>
  Promise.race([p.then(() => "stopped" as const), new Promise<"late">((r) => setTimeout(() => r("late"), GRACE_MS + 5_000))]);

const cleanupJob = (deliveryId: string) => ({ installationId: 1, owner: "o", repo: "r", number: 1, threadIds: [randomUUID()], merged: false, deliveryId });

const privates: PrivateRedis[] = [];
afterEach(async () => {
  await Promise.all(privates.splice(0).map((r) => r.kill()));
});

async function poolWithRunningJob(url: string) {
  const prefix = uniquePrefix();
  const redis = connectRedis(url);
  redis.on("error", () => {});
  const queues = new QueueSet({ connection: redis, prefix, attempts: 3 });
  const seen: { aborted?: unknown } = {};
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  const services = { config: readConfig({}), redis, prefix, queues } as unknown as WorkerServices;
  const pool: WorkerPool = await startWorkers({
    services,
    log: createLogger("silent"),
    concurrency: 1,
    queues: ["cleanup"],
    processors: {
      // A long run that honours its AbortSignal, as the agent's does.
      cleanup: (_data, ctx) =>
        new Promise((_, reject) => {
          started();
          ctx.signal.addEventListener("abort", () => {
            seen.aborted = ctx.signal.reason;
            reject(new Error("aborted"));
          });
        }),
    },
  });
  await queues.add("cleanup", cleanupJob("d1"), "d1");
  await running;
  return { pool, queues, redis, seen };
}

describe("shutdown", () => {
  it("when the grace runs out, aborts the running job through its signal and returns it to the queue, attempt not spent", async () => {
    const { pool, queues, redis, seen } = await poolWithRunningJob(redisUrl());
    expect(await withinBound(pool.close(GRACE_MS))).toBe("stopped");
    expect(seen.aborted).toBe(SHUTDOWN_REASON);
    const job = await queues.queues.cleanup.getJob("d1");
    expect(await job!.getState()).toBe("waiting");
    expect(job!.attemptsMade).toBe(0);
    await queues.close();
    await redis.quit();
  });

  it("with Redis gone mid-run, the pool still stops within grace + 5 s", async () => {
    const own = await startPrivateRedis();
    privates.push(own);
    const { pool, redis, seen } = await poolWithRunningJob(own.url);
    await own.kill();
    expect(await withinBound(pool.close(GRACE_MS))).toBe("stopped");
    expect(seen.aborted).toBe(SHUTDOWN_REASON);
    redis.disconnect();
  });

  it("a worker process whose Redis died stops within grace + 5 s, on the first signal", async () => {
    const own = await startPrivateRedis();
    privates.push(own);
    const proc = await startTestProcess("worker", { QUEUE_REDIS_URL: own.url, QUEUE_PREFIX: uniquePrefix(), SHUTDOWN_GRACE_SECONDS: "1" });
    await own.kill();
    await new Promise((r) => setTimeout(r, 200));
    expect(await Promise.race([proc.stop().then(() => "stopped"), new Promise((r) => setTimeout(() => r("late"), 6_000))])).toBe("stopped");
  });
});
