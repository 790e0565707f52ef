import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../helpers/paths.js";
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
import { testSigner } from "../helpers/job-signer.js";
import { findJob } from "../helpers/jobs.js";

const GRACE_MS = 500;
/** The documented bound: a stop returns within the grace plus 5 s. */
const withinBound = <T>(p: Promise<T>) => Promise.race([p.then(() => "stopped" as const), new Promise<"late">((r) => setTimeout(() => r("late"), GRACE_MS + 5_000))]);

const cleanupJob = (deliveryId: string) => ({ installationId: 1, owner: "o", repo: "r", number: 1, threadIds: [randomUUID()], merged: false, deliveryId });

const privates: PrivateRedis[] = [];
afterEach(async () => {
  await Promise.all(privates.splice(0).map((r) => r.kill()));
});

async function poolWithRunningJob(url: string) {
  const prefix = uniquePrefix();
  const redis = connectRedis(url);
  redis.on("error", () => {});
  const queues = new QueueSet({ connection: redis, prefix, attempts: 3, signer: testSigner() });
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
  await queues.add("cleanup", cleanupJob("d1"), "d1", { via: "github-webhook" });
  await running;
  return { pool, queues, redis, seen };
}

describe("shutdown", () => {
  it("when the grace runs out, aborts the running job through its signal and returns it to the queue, attempt not spent", async () => {
    const { pool, queues, redis, seen } = await poolWithRunningJob(redisUrl());
    expect(await withinBound(pool.close(GRACE_MS))).toBe("stopped");
    expect(seen.aborted).toBe(SHUTDOWN_REASON);
    const job = await findJob(queues.queues.cleanup, "d1");
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

describe("worker connections", () => {
  it("BullMQ's Lua scripts live on the queues' own connection, not the stores' (each MULTI copies a connection's scripts); stop closes both", async () => {
    const own = await startPrivateRedis();
    privates.push(own);
    const proc = await startTestProcess("worker", { QUEUE_REDIS_URL: own.url, QUEUE_PREFIX: uniquePrefix(), SHUTDOWN_GRACE_SECONDS: "1" });
    const scripts = (c: unknown) => Object.keys((c as { scriptsSet: Record<string, unknown> }).scriptsSet).length;
    try {
      await proc.queues.queues.agent.waitUntilReady();
      expect(proc.queues.connection).not.toBe(proc.redis);
      expect(scripts(proc.queues.connection)).toBeGreaterThan(10);
      expect(scripts(proc.redis)).toBe(0);
    } finally {
      await proc.stop();
    }
    // quit resolves on Redis's OK; the socket closes right after.
    for (let i = 0; i < 100 && [proc.redis.status, proc.queues.connection.status].some((st) => st !== "end"); i++) await new Promise((r) => setTimeout(r, 20));
    expect([proc.redis.status, proc.queues.connection.status]).toEqual(["end", "end"]);
  });
});

describe("worker health endpoint", () => {
  it("with HEALTH_PORT, a worker answers GET /health: 200 while Redis is up, 503 once it is gone (the image's liveness check stays 0)", async () => {
    const own = await startPrivateRedis();
    privates.push(own);
    const proc = await startTestProcess("worker", { QUEUE_REDIS_URL: own.url, QUEUE_PREFIX: uniquePrefix(), HEALTH_PORT: "0", SHUTDOWN_GRACE_SECONDS: "1" });
    try {
      expect(proc.port).toBeNull();
      const url = `http://127.0.0.1:${proc.healthPort}/health`;
      const up = await fetch(url);
      expect([up.status, await up.json()]).toEqual([200, { status: "ok", role: "worker", redis: "up" }]);
      expect((await fetch(`http://127.0.0.1:${proc.healthPort}/api/github/webhooks`, { method: "POST" })).status).toBe(404);
      // The image's own HEALTHCHECK command, as Docker runs it in a worker container (PORT has no listener there).
      const check = /^HEALTHCHECK .* CMD (.*)$/m.exec(readFileSync(join(ROOT, "Dockerfile"), "utf8"))![1]!;
      // Asynchronously: the worker answering it lives in this process.
      const dockerCheck = () =>
        new Promise<number | null>((resolve) =>
          execFile("sh", ["-c", check], { env: { PATH: process.env.PATH, HEALTH_PORT: String(proc.healthPort), PORT: "1" }, timeout: 10_000 }, (err) =>
            resolve(err ? (typeof err.code === "number" ? err.code : null) : 0),
          ),
        );
      expect(await dockerCheck()).toBe(0);
      await own.kill();
      const down = await fetch(url);
      expect(down.status).toBe(503);
      // The image's HEALTHCHECK is liveness (/livez, #49): a Redis outage makes the worker unready, never restarted.
      expect(await dockerCheck()).toBe(0);
    } finally {
      await proc.stop();
    }
  });
});
