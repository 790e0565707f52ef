import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { hostAliveKey, hostQueueName, hostsKey, routeThread, sandboxHostKey, threadSandboxKey, threadsOf } from "../../src/queue/host-routes.js";
import { QueueSet } from "../../src/queue/queues.js";
import { testSigner } from "../helpers/job-signer.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const agentJob = (threadId: string) => ({
  installationId: 1,
  owner: "octo",
  repo: "hello",
  number: 3,
  threadId,
  trigger: "comment" as const,
  requester: { login: "dana", id: 31 },
  text: "go",
  deliveryId: randomUUID(),
});

const opened: QueueSet[] = [];
afterEach(async () => {
  for (const q of opened.splice(0)) await q.close();
});

/** Real Redis: a thread's sandbox `sb-<n>` recorded on `host` (alive or not). */
async function placed(prefix: string, threadId: string, host: string | null, alive: boolean): Promise<void> {
  const redis = testRedis();
  const sandbox = `sb-${threadId.slice(0, 8)}`;
  await redis.set(threadSandboxKey(prefix, threadId), sandbox);
  if (host) {
    await redis.set(sandboxHostKey(prefix, sandbox), host);
    await redis.sadd(hostsKey(prefix), host);
    if (alive) await redis.set(hostAliveKey(prefix, host), "1", "PX", 60_000);
  }
}

describe("routeThread", () => {
  it.each([
    ["no sandbox yet", null, false, undefined, { host: null }],
    ["a vendor sandbox (no host recorded)", null, false, "vendor", { host: null }],
    ["a local sandbox on a live host", "h-live0001", true, "local", { host: "h-live0001" }],
    ["a local sandbox on a dead host", "h-dead0001", false, "local", { host: null, lostHost: "h-dead0001" }],
  ])("%s", async (_name, host, alive, sandbox, route) => {
    const prefix = uniquePrefix();
    const thread = randomUUID();
    if (sandbox) await placed(prefix, thread, host, alive);
    expect(await routeThread(testRedis(), prefix, thread)).toEqual({ threadId: thread, ...route });
  });

  it.each([
    ["the first key that holds a thread wins", ["pr", "branch"], ["pr", "branch"], "pr"],
    ["an empty first key falls through to the next", ["branch"], ["pr", "branch"], "branch"],
    ["no key holds one: the payload's thread", [], ["pr", "branch"], "fallback"],
    ["no keys at all: the payload's thread", [], [], "fallback"],
  ] as const)("threadFrom: %s", async (_name, recorded, asked, expected) => {
    const prefix = uniquePrefix();
    const threads = { pr: randomUUID(), branch: randomUUID(), fallback: randomUUID() };
    for (const k of recorded) await testRedis().set(`${prefix}:origin:${k}`, threads[k]);
    await placed(prefix, threads[expected], "h-orig0001", true);
    const route = await routeThread(
      testRedis(),
      prefix,
      threads.fallback,
      asked.map((k) => `${prefix}:origin:${k}`),
    );
    expect(route).toEqual({ threadId: threads[expected], host: "h-orig0001" });
  });

  it("a Redis that lost the script (restart, SCRIPT FLUSH) is sent its text again", async () => {
    const prefix = uniquePrefix();
    const thread = randomUUID();
    await placed(prefix, thread, "h-flush001", true);
    await testRedis().script("FLUSH");
    expect(await routeThread(testRedis(), prefix, thread)).toEqual({ threadId: thread, host: "h-flush001" });
  });
});

describe("threadsOf", () => {
  it.each([
    ["agent", { threadId: "t1" }, ["t1"]],
    ["cleanup", { threadIds: ["t1", "t2"] }, ["t1", "t2"]],
    ["cleanup", { kind: "sweep" }, []],
  ] as const)("%s %j", (queue, payload, threads) => {
    expect(threadsOf(queue, payload)).toEqual(threads);
  });
});

describe("QueueSet.add routes a thread's job to its sandbox's host", () => {
  it("a live host's thread → its host queue, signed for the base queue (its worker verifies it); found by findJob/jobState", async () => {
    const prefix = uniquePrefix();
    const queues = new QueueSet({ connection: testRedis(), prefix, attempts: 1, signer: testSigner() });
    opened.push(queues);
    const thread = randomUUID();
    await placed(prefix, thread, "h-live0002", true);
    await queues.add("agent", agentJob(thread), "j__a1", { via: "github-webhook" });
    expect(await queues.queues.agent.getJob("j__a1")).toBeUndefined();
    const job = await queues.hostQueue("agent", "h-live0002").getJob("j__a1");
    expect(job?.queueName).toBe(hostQueueName("agent", "h-live0002"));
    expect(queues.signer.verify("agent", job!.id!, job!.data, Date.now())).toMatchObject({ ok: true });
    expect((await queues.findJob("agent", "j__a1"))?.queueName).toBe("agent@h-live0002");
    expect(await queues.jobState("agent", "j__a1")).toBe("waiting");
    expect(await queues.jobState("agent", "j__nothing")).toBe("unknown");
  });

  it("a comment on our PR: the thread recorded under `threadFrom` replaces the payload's, is routed to its host and signed", async () => {
    const prefix = uniquePrefix();
    const queues = new QueueSet({ connection: testRedis(), prefix, attempts: 1, signer: testSigner() });
    opened.push(queues);
    const [origin, prThread] = [randomUUID(), randomUUID()];
    await testRedis().set(`${prefix}:origin:pr`, origin);
    await placed(prefix, origin, "h-live0003", true);
    await queues.add("agent", agentJob(prThread), "j__a3", { via: "github-webhook", threadFrom: [`${prefix}:origin:pr`] });
    const job = await queues.hostQueue("agent", "h-live0003").getJob("j__a3");
    expect(job?.data).toMatchObject({ threadId: origin });
    expect(queues.signer.verify("agent", job!.id!, job!.data, Date.now())).toMatchObject({ ok: true });
    expect(await queues.queues.agent.getJob("j__a3")).toBeUndefined();
  });

  it("a dead host's thread → the shared queue", async () => {
    const prefix = uniquePrefix();
    const queues = new QueueSet({ connection: testRedis(), prefix, attempts: 1, signer: testSigner() });
    opened.push(queues);
    const thread = randomUUID();
    await placed(prefix, thread, "h-dead0002", false);
    await queues.add("agent", agentJob(thread), "j__a2", { via: "github-webhook" });
    expect(await queues.queues.agent.getJob("j__a2")).toBeDefined();
  });

  it("a teardown of threads on two hosts and one without a host is split: one job per place, the first keeps the id", async () => {
    const prefix = uniquePrefix();
    const queues = new QueueSet({ connection: testRedis(), prefix, attempts: 1, signer: testSigner() });
    opened.push(queues);
    const [t1, t2, t3] = [randomUUID(), randomUUID(), randomUUID()];
    await placed(prefix, t1, "h-one00001", true);
    await placed(prefix, t2, "h-two00002", true);
    const id = await queues.add("cleanup", { installationId: 1, owner: "octo", repo: "hello", number: 3, threadIds: [t1, t2, t3], merged: false, deliveryId: "d" }, "j__c", { via: "github-webhook" });
    expect(id).toBe("j__c");
    const threads = async (q: { getJob(id: string): Promise<{ data: { threadIds: string[] } } | undefined> }, jobId: string) => (await q.getJob(jobId))?.data.threadIds;
    expect(await threads(queues.hostQueue("cleanup", "h-one00001"), "j__c")).toEqual([t1]);
    expect(await threads(queues.hostQueue("cleanup", "h-two00002"), "j__c@h-two00002")).toEqual([t2]);
    expect(await threads(queues.queues.cleanup, "j__c@shared")).toEqual([t3]);
  });
});
