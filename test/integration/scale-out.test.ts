import { join } from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { QueueSet } from "../../src/queue/queues.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { fixtureArgs } from "../helpers/fixture-command.js";
import { ROOT } from "../helpers/paths.js";
import { testSigner } from "../helpers/job-signer.js";
import { findJob } from "../helpers/jobs.js";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});

async function startWorker(prefix: string, name: string, delayMs: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...(await fixtureArgs(join(ROOT, "test/fixtures/scale-worker.ts"))), redisUrl(), prefix, name, String(delayMs)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve(child));
    child.once("exit", (code) => reject(new Error(`worker ${name} exited early (${code})`)));
  });
}

const cleanupJob = (deliveryId: string) => ({
  installationId: 1,
  owner: "o",
  repo: "r",
  number: 1,
  threadIds: [randomUUID()],
  merged: false,
  deliveryId,
});

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("scale-out: two worker processes on one Redis", () => {
  it("process 200 jobs, each exactly once, shared between both", async () => {
    const prefix = uniquePrefix();
    const redis = testRedis();
    const queues = new QueueSet({ connection: redis, prefix, attempts: 3, signer: testSigner() });
    await Promise.all([startWorker(prefix, "w1", 5), startWorker(prefix, "w2", 5)]);
    const ids = Array.from({ length: 200 }, (_, i) => `d${i}`);
    for (const id of ids) await queues.add("cleanup", cleanupJob(id), deliveryJobId(id), { via: "github-webhook" });
    await until(async () => (await redis.hlen(`${prefix}:completed`)) === 200, 30_000);
    const counts = await redis.hgetall(`${prefix}:completed`);
    expect(Object.values(counts).every((n) => n === "1")).toBe(true);
    const by = await redis.lrange(`${prefix}:completed-by`, 0, -1);
    expect(by.filter((n) => n === "w1").length).toBeGreaterThan(0);
    expect(by.filter((n) => n === "w2").length).toBeGreaterThan(0);
    expect(await queues.queues.cleanup.getCompletedCount()).toBe(200);
    await queues.close();
  });

  it("a worker killed with SIGKILL mid-job: the other finishes the job, nothing lost", async () => {
    const prefix = uniquePrefix();
    const redis = testRedis();
    const queues = new QueueSet({ connection: redis, prefix, attempts: 3, signer: testSigner() });
    const victim = await startWorker(prefix, "victim", 60_000);
    await queues.add("cleanup", cleanupJob("slow"), deliveryJobId("slow"), { via: "github-webhook" });
    await until(async () => (await redis.llen(`${prefix}:started`)) === 1, 10_000);
    // The survivor is up before the kill: what is measured is the takeover, not a process start.
    await startWorker(prefix, "survivor", 10);
    const killedAt = Date.now();
    victim.kill("SIGKILL");
    await until(async () => (await redis.llen(`${prefix}:started`)) === 2, 20_000);
    const takeoverMs = Date.now() - killedAt;
    // The fixture's QUEUE_LOCK_DURATION_MS=1000 + QUEUE_STALLED_INTERVAL_MS=500: the lock lapses, then the next stalled check.
    console.log(`takeover after SIGKILL: ${takeoverMs} ms (lock 1000 ms, stalled check every 500 ms)`);
    expect(takeoverMs).toBeLessThan(1_000 + 500 + 1_500);
    await until(async () => (await redis.hget(`${prefix}:completed`, "slow")) === "1", 20_000);
    expect(await redis.lrange(`${prefix}:started`, 0, -1)).toEqual(["victim:slow", "survivor:slow"]);
    expect(await redis.lrange(`${prefix}:completed-by`, 0, -1)).toEqual(["survivor"]);
    // The processor records its completion a moment before BullMQ moves the job to completed.
    await until(async () => (await (await findJob(queues.queues.cleanup, deliveryJobId("slow")))?.getState()) === "completed", 10_000);
    await queues.close();
  });

  it("SIGTERM lets the in-flight job finish, then the process exits 0", async () => {
    const prefix = uniquePrefix();
    const redis = testRedis();
    const queues = new QueueSet({ connection: redis, prefix, attempts: 3, signer: testSigner() });
    const worker = await startWorker(prefix, "w", 800);
    await queues.add("cleanup", cleanupJob("inflight"), deliveryJobId("inflight"), { via: "github-webhook" });
    await until(async () => (await redis.llen(`${prefix}:started`)) === 1, 10_000);
    const exited = new Promise<number | null>((r) => worker.once("exit", (code) => r(code)));
    worker.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(await redis.hget(`${prefix}:completed`, "inflight")).toBe("1");
    await queues.close();
  });
});
