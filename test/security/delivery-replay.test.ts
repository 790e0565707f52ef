import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostAliveKey, hostsKey, sandboxHostKey, threadSandboxKey } from "../../src/queue/host-routes.js";
import { intakeStreamKey } from "../../src/queue/intake-keys.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { threadId } from "../../src/shared/thread-id.js";
import { issueCommentPayload, sendWebhook, WEBHOOK_SECRET } from "../helpers/github-app.js";
import { ROOT } from "../helpers/paths.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { startStreamIntake } from "../helpers/stream-intake.js";

// Finding (#42, 4): dedupe was per BullMQ queue. A delivery first queued on `agent` and redelivered once
// the thread has a sandbox host went to `agent@<host>`, where no job had its id: it ran twice (GitHub's
// Redeliver, and the intake pump's own re-add after a crash). And GitHub does not sign the delivery id:
// a captured body re-posted under a new `X-GitHub-Delivery` ran again.

const ALL = ["waiting", "active", "completed", "failed", "delayed", "prioritized", "waiting-children"] as const;

describe("security: a delivery is one job across every queue", () => {
  const prefix = uniquePrefix();
  let intake: Awaited<ReturnType<typeof startStreamIntake>>;
  beforeAll(async () => {
    intake = await startStreamIntake(prefix);
    intake.pump();
  });
  afterAll(async () => {
    await intake?.stop();
  });

  const agentJobs = async () => Object.values(await intake.queues.jobCounts("agent", ALL)).reduce((a, b) => a + b, 0);
  const drained = () => expect.poll(() => testRedis().xlen(intakeStreamKey(prefix, "agent")), { timeout: 15_000 }).toBe(0);
  /** The thread's local sandbox now lives on a live host: its jobs are routed to `agent@<host>`. */
  const giveHost = async (thread: string, host: string) => {
    await testRedis().set(threadSandboxKey(prefix, thread), `sb-${host}`);
    await testRedis().set(sandboxHostKey(prefix, `sb-${host}`), host);
    await testRedis().sadd(hostsKey(prefix), host);
    await testRedis().set(hostAliveKey(prefix, host), "1", "PX", 120_000);
  };

  it("Redeliver after the thread gained a host, and the same body under a new delivery id: one job, both answered 2xx", async () => {
    const payload = issueCommentPayload({ installationId: 1, number: 61, issueId: 1061, commentId: 611, body: "@open-swe fix the flaky test" });
    const first = await sendWebhook(intake.proc.port!, { event: "issue_comment", payload });
    expect(first.status).toBe(200);
    await drained();
    expect(await agentJobs()).toBe(1);

    await giveHost(threadId({ kind: "issue", issueId: 1061 }), "h-replay0001");
    const redelivered = await sendWebhook(intake.proc.port!, { event: "issue_comment", payload, deliveryId: first.deliveryId });
    expect(redelivered.status).toBe(200);
    expect(JSON.parse(redelivered.body)).toMatchObject({ duplicate: "delivery" });
    const replayed = await sendWebhook(intake.proc.port!, { event: "issue_comment", payload, deliveryId: randomUUID() });
    expect(replayed.status).toBe(200);
    expect(JSON.parse(replayed.body)).toMatchObject({ duplicate: "body" });
    await drained();
    expect(await agentJobs()).toBe(1);

    // Another comment on the same thread is a new delivery: it is queued (on the host now).
    const next = await sendWebhook(intake.proc.port!, { event: "issue_comment", payload: { ...payload, comment: { ...payload.comment, id: 612 } } });
    expect(next.status).toBe(200);
    await drained();
    expect(await agentJobs()).toBe(2);
  });
});

/** The rest of a line a child prints that starts with `prefix`. */
function lineStartingWith(proc: ChildProcess, prefix: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = "";
    proc.stdout!.on("data", (d: Buffer) => {
      buf += d.toString();
      const line = buf.split("\n").find((l) => l.startsWith(prefix));
      if (line) resolve(line.slice(prefix.length));
    });
    proc.once("exit", (code) => reject(new Error(`pump process exited (${code}) before printing "${prefix}"`)));
  });
}

describe("security: an intake pump's re-add after a crash is not a second job", () => {
  const prefix = uniquePrefix();
  let intake: Awaited<ReturnType<typeof startStreamIntake>>;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    intake = await startStreamIntake(prefix);
  });
  afterAll(async () => {
    child?.kill("SIGKILL");
    await intake?.stop();
  });

  it("the pump dies after adding, the thread gains a host, another pump takes the entry over: still one job, on the first queue", async () => {
    const { proc, queues } = intake;
    const res = await sendWebhook(proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 1, number: 62, issueId: 1062, commentId: 621, body: "@open-swe fix the build" }),
    });
    expect(res.status).toBe(200);
    child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "test/queue/fixtures/pump-until-added.mts"), redisUrl(), prefix, WEBHOOK_SECRET], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    });
    await lineStartingWith(child, "added ");
    const exited = new Promise((r) => child!.once("exit", r));
    child.kill("SIGKILL");
    await exited;
    expect((await queues.findJob("agent", deliveryJobId(res.deliveryId)))?.queueName).toBe("agent");

    const host = "h-replay0002";
    await testRedis().set(threadSandboxKey(prefix, threadId({ kind: "issue", issueId: 1062 })), `sb-${host}`);
    await testRedis().set(sandboxHostKey(prefix, `sb-${host}`), host);
    await testRedis().sadd(hostsKey(prefix), host);
    await testRedis().set(hostAliveKey(prefix, host), "1", "PX", 120_000);
    intake.pump(200);
    await expect.poll(() => testRedis().xlen(intakeStreamKey(prefix, "agent")), { timeout: 15_000 }).toBe(0);
    expect(Object.values(await queues.jobCounts("agent", ALL)).reduce((a, b) => a + b, 0)).toBe(1);
    expect((await queues.findJob("agent", deliveryJobId(res.deliveryId)))?.queueName).toBe("agent");
  }, 60_000);
});
