import { spawn, type ChildProcess } from "node:child_process";
import { join, resolve } from "node:path";
import { Worker } from "bullmq";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { intakeStreamKey } from "../../src/queue/intake-keys.js";
import { IntakePump } from "../../src/queue/intake-pump.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { QueueSet } from "../../src/queue/queues.js";
import { connectRedis } from "../../src/store/redis.js";
import { issueCommentPayload, sendWebhook, WEBHOOK_SECRET } from "../helpers/github-app.js";
import { testSigner } from "../helpers/job-signer.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

const ROOT = resolve(import.meta.dirname, "../..");

/** Lines a child prints, one promise per expected prefix. */
function lineStartingWith(child: ChildProcess, prefix: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = "";
    child.stdout!.on("data", (d: Buffer) => {
      buf += d.toString();
      const line = buf.split("\n").find((l) => l.startsWith(prefix));
      if (line) resolve(line.slice(prefix.length));
    });
    child.once("exit", (code) => reject(new Error(`pump process exited (${code}) before printing "${prefix}"`)));
  });
}

describe("an intake pump killed between adding and acknowledging", () => {
  const prefix = uniquePrefix();
  let proc: RunningProcess;
  let queues: QueueSet;
  let child: ChildProcess | undefined;
  let pump: IntakePump | undefined;
  let worker: Worker | undefined;
  beforeAll(async () => {
    proc = await startTestProcess("web", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, WEBHOOK_INTAKE: "stream" });
    queues = new QueueSet({ connection: connectRedis(redisUrl()), prefix, attempts: 1, signer: testSigner() });
  });
  afterAll(async () => {
    child?.kill("SIGKILL");
    await worker?.close();
    await pump?.stop();
    await queues?.close();
    queues?.connection.disconnect();
    await proc?.stop();
  });

  it("leaves the entry pending; another pump claims it, adds it again under the same id, and the job runs exactly once", async () => {
    const res = await sendWebhook(proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 1, number: 31, issueId: 1031, commentId: 88, body: "@open-swe fix the build" }),
    });
    expect(res.status).toBe(200);
    const stream = intakeStreamKey(prefix, "agent");

    child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "test/queue/fixtures/pump-until-added.mts"), redisUrl(), prefix, WEBHOOK_SECRET], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const consumer = await lineStartingWith(child, "consumer ");
    const [entryId] = (await lineStartingWith(child, "added ")).split(",");
    const exited = new Promise((r) => child!.once("exit", r));
    child.kill("SIGKILL");
    await exited;
    // Killed after the add, before the acknowledgement: the job exists and the entry is still the dead pump's.
    const job = await queues.findJob("agent", deliveryJobId(res.deliveryId));
    expect(job).toBeDefined();
    expect(await testRedis().xpending(stream, "pumps", "-", "+", 10)).toEqual([[entryId, consumer, expect.any(Number), 1]]);

    let runs = 0;
    worker = new Worker(
      "agent",
      async (j) => {
        if (!queues.signer.verify("agent", j.data).ok) throw new Error("unsigned");
        runs += 1;
      },
      { connection: connectRedis(redisUrl()), prefix },
    );
    pump = new IntakePump({ connection: connectRedis(redisUrl()), queues, prefix, log: pino({ level: "silent" }), claimIdleMs: 300 });
    pump.start();
    await expect.poll(() => testRedis().xlen(stream), { timeout: 15_000 }).toBe(0);
    expect(await testRedis().xpending(stream, "pumps")).toEqual([0, null, null, null]);
    await expect.poll(() => queues.jobState("agent", deliveryJobId(res.deliveryId)), { timeout: 15_000 }).toBe("completed");
    await worker.close();
    expect(runs).toBe(1);
    expect(await queues.jobCounts("agent", ["waiting", "active", "completed", "failed", "delayed"])).toEqual({ waiting: 0, active: 0, completed: 1, failed: 0, delayed: 0 });
  });
});
