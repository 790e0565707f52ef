import { spawn, type ChildProcess } from "node:child_process";
import { join, resolve } from "node:path";
import { Worker } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { intakeStreamKey } from "../../src/queue/intake-keys.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { connectRedis } from "../../src/store/redis.js";
import { issueCommentPayload, sendWebhook, WEBHOOK_SECRET } from "../helpers/github-app.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { startStreamIntake } from "../helpers/stream-intake.js";

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
  let intake: Awaited<ReturnType<typeof startStreamIntake>>;
  let child: ChildProcess | undefined;
  let worker: Worker | undefined;
  beforeAll(async () => {
    intake = await startStreamIntake(prefix);
  });
  afterAll(async () => {
    child?.kill("SIGKILL");
    await worker?.close();
    await intake?.stop();
  });

  it("leaves the entry pending; another pump claims it, adds it again under the same id, and the job runs exactly once", async () => {
    const { proc, queues } = intake;
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
        if (!queues.signer.verify("agent", j.id!, j.data, Date.now()).ok) throw new Error("unsigned");
        runs += 1;
      },
      { connection: connectRedis(redisUrl()), prefix },
    );
    intake.pump(300);
    await expect.poll(() => testRedis().xlen(stream), { timeout: 15_000 }).toBe(0);
    expect(await testRedis().xpending(stream, "pumps")).toEqual([0, null, null, null]);
    await expect.poll(() => queues.jobState("agent", deliveryJobId(res.deliveryId)), { timeout: 15_000 }).toBe("completed");
    await worker.close();
    expect(runs).toBe(1);
    expect(await queues.jobCounts("agent", ["waiting", "active", "completed", "failed", "delayed"])).toEqual({ waiting: 0, active: 0, completed: 1, failed: 0, delayed: 0 });
  });
});
