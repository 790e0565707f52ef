import { Worker, type Job } from "bullmq";
import { testSigner } from "../helpers/job-signer.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostAliveKey, hostQueueName, hostsKey, sandboxHostKey, threadSandboxKey } from "../../src/queue/host-routes.js";
import { intakeStreamKey } from "../../src/queue/intake-keys.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { PrThreads } from "../../src/store/pr-threads.js";
import { threadId } from "../../src/shared/thread-id.js";
import { connectRedis } from "../../src/store/redis.js";
import { issueCommentPayload, sendWebhook } from "../helpers/github-app.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { startStreamIntake } from "../helpers/stream-intake.js";

/**
 * WEBHOOK_INTAKE=stream end to end: a real web process verifies a real signature and appends one sealed
 * entry; an intake pump routes (origin keys, live host) and signs it into BullMQ; a worker verifies the
 * provenance as the app's does and runs it once, a redelivery included.
 */
describe("webhook → intake stream → pump → job → worker", () => {
  const prefix = uniquePrefix();
  let intake: Awaited<ReturnType<typeof startStreamIntake>>;
  let worker: Worker | undefined;
  beforeAll(async () => {
    intake = await startStreamIntake(prefix);
  });
  afterAll(async () => {
    await worker?.close();
    await intake?.stop();
  });

  it("is durable in Redis at the 2xx, counted as waiting, and becomes one routed, signed job that a worker runs once", async () => {
    const { proc, queues } = intake;
    const origin = threadId({ kind: "issue", issueId: 8021 });
    await new PrThreads(testRedis(), prefix, testSigner()).record({ owner: "octo", repo: "hello", number: 21, branch: "open-swe/abcd0021-x" }, origin);
    await testRedis().set(threadSandboxKey(prefix, origin), "sb-21");
    await testRedis().set(sandboxHostKey(prefix, "sb-21"), "h-intake21");
    await testRedis().sadd(hostsKey(prefix), "h-intake21");
    await testRedis().set(hostAliveKey(prefix, "h-intake21"), "1", "PX", 60_000);
    const delivery = { event: "issue_comment", payload: issueCommentPayload({ installationId: 1, number: 21, issueId: 1021, commentId: 77, body: "@open-swe fix the flaky test", pullRequest: true }) };
    const res = await sendWebhook(proc.port!, delivery);
    expect(res.status).toBe(200);
    // No pump yet: the webhook is one entry in the agent stream, and the queue depth counts it.
    expect(await testRedis().xlen(intakeStreamKey(prefix, "agent"))).toBe(1);
    expect(await queues.findJob("agent", deliveryJobId(res.deliveryId))).toBeUndefined();
    expect((await proc.queues.jobCounts("agent", ["waiting"])).waiting).toBe(1);
    // A redelivery (same delivery id) appends again; the pump makes it the same job.
    expect((await sendWebhook(proc.port!, { ...delivery, deliveryId: res.deliveryId })).status).toBe(200);

    const ran: Job[] = [];
    let done!: () => void;
    const first = new Promise<void>((r) => (done = r));
    worker = new Worker(
      hostQueueName("agent", "h-intake21"),
      async (job) => {
        const verified = queues.signer.verify("agent", job.id!, job.data, Date.now());
        if (!verified.ok) throw new Error(verified.reason);
        ran.push(job);
        done();
      },
      { connection: connectRedis(redisUrl()), prefix },
    );
    intake.pump();
    await first;
    expect(ran[0]!.id).toBe(deliveryJobId(res.deliveryId));
    expect(ran[0]!.data).toMatchObject({ threadId: origin, number: 21, text: "fix the flaky test", provenance: { via: "github-webhook", principal: { login: "dana" } } });
    // The stream is emptied only once both entries are acknowledged; then the count is BullMQ's alone.
    await expect.poll(() => testRedis().xlen(intakeStreamKey(prefix, "agent")), { timeout: 10_000 }).toBe(0);
    expect(await testRedis().xpending(intakeStreamKey(prefix, "agent"), "pumps")).toEqual([0, null, null, null]);
    await worker.close();
    expect(ran).toHaveLength(1);
    expect((await proc.queues.jobCounts("agent", ["waiting"])).waiting).toBe(0);
  });
});
