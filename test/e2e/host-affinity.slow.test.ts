import { afterAll, describe, expect, it } from "vitest";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { join } from "node:path";
import { hostAliveKey, hostQueueName, sandboxHostKey, threadSandboxKey } from "../../src/queue/host-routes.js";
import { readSandboxConfig } from "../../src/config/sandbox-config.js";
import { createSandboxProvider } from "../../src/sandbox/registry.js";
import type { AgentJob } from "../../src/queue/schemas.js";
import { threadId } from "../../src/shared/thread-id.js";
import { twoHosts, waitForRoutedJob, type TwoHosts } from "../helpers/two-hosts.js";

// Every run appends a line to an uncommitted file and reads how many lines it holds: the workspace's memory.
const SCRIPT = [
  { tool_calls: [{ name: "execute", args: { command: "echo run >> notes.txt && echo lines=$(wc -l < notes.txt)" } }] },
  { tool_calls: [{ name: "confirming_completion", args: { summary: "noted" } }] },
];

const opened: TwoHosts[] = [];
afterAll(async () => {
  for (const h of opened) await h.close();
});

function request(thread: string, n: number): AgentJob {
  return {
    installationId: 7,
    owner: "octo",
    repo: "hello",
    source: { kind: "github" },
    number: 6,
    isPullRequest: false,
    threadId: thread,
    trigger: "comment",
    requester: { login: "dana", id: 31 },
    text: `note ${n}`,
    verdictAuthorized: false,
    comment: { kind: "issue_comment", id: 100 + n },
    deliveryId: `affinity-${thread.slice(0, 8)}-${n}`,
  };
}

describe("e2e: host affinity for local sandboxes (two worker processes, separate DATA_DIRs)", () => {
  it("6 sequential requests on one thread stay on its host and keep one workspace; the host dies → the shared queue, and the reply says the workspace was lost", async () => {
    const hosts = twoHosts(SCRIPT, { HOST_ALIVE_MS: "1500" });
    opened.push(hosts);
    const { redis, prefix, queues } = hosts;
    const [procA, procB] = await Promise.all([hosts.a.start(), hosts.b.start()]);
    const byId = new Map([
      [hosts.a.id(), procA],
      [hosts.b.id(), procB],
    ]);
    const thread = threadId({ kind: "issue", issueId: 6006 });
    const lines = async () => {
      const tool = (await hosts.messages(thread)).filter((m) => m.getType() === "tool" && String(m.content).includes("lines=")).at(-1);
      return Number(/lines=(\d+)/.exec(String(tool?.content))?.[1]);
    };
    const placement = async () => {
      const sandbox = (await redis.get(threadSandboxKey(prefix, thread)))!;
      return { sandbox, host: await redis.get(sandboxHostKey(prefix, sandbox)) };
    };

    const seen: { sandbox: string; host: string | null; lines: number; queue: string }[] = [];
    for (let n = 1; n <= 6; n++) {
      const id = deliveryJobId(`affinity-${n}`);
      await queues.add("agent", request(thread, n), id, { via: "github-webhook" });
      const done = await waitForRoutedJob(queues, "agent", id);
      expect(done.failedReason).toBeUndefined();
      seen.push({ ...(await placement()), lines: await lines(), queue: done.queue });
    }
    const switches = seen.slice(1).filter((s, i) => s.host !== seen[i]!.host).length;
    console.log(`host affinity: ${switches} host switches, ${new Set(seen.map((s) => s.sandbox)).size} workspace(s) over 6 requests`, seen.map((s) => `${s.queue}→${s.host}:${s.lines}`).join(" "));
    expect(switches).toBe(0);
    expect(new Set(seen.map((s) => s.sandbox)).size).toBe(1);
    // The uncommitted file grew by one line a run: one workspace throughout.
    expect(seen.map((s) => s.lines)).toEqual([1, 2, 3, 4, 5, 6]);
    // The first request had no sandbox yet (shared queue); every follow-up went to the host's own queue.
    const home = seen[0]!.host!;
    expect(seen.slice(1).every((s) => s.queue === `agent@${home}`)).toBe(true);

    // The host dies: once its liveness key lapses, the next request goes to the shared queue, is run by
    // the other host in a new sandbox, and the reply says the uncommitted work was lost.
    byId.get(home)!.kill("SIGKILL");
    for (let i = 0; (await redis.exists(hostAliveKey(prefix, home))) === 1; i++) {
      if (i > 400) throw new Error("the dead host's liveness key never lapsed");
      await new Promise((r) => setTimeout(r, 25));
    }
    const before = await redis.llen(`${prefix}:gh-calls`);
    const id = deliveryJobId("affinity-7");
    await queues.add("agent", request(thread, 7), id, { via: "github-webhook" });
    expect(await queues.queues.agent.getJob(id)).toBeDefined();
    const done = await waitForRoutedJob(queues, "agent", id);
    expect(done).toMatchObject({ queue: "agent", state: "completed" });
    const after = await placement();
    expect(after.host).not.toBe(home);
    expect(after.sandbox).not.toBe(seen[0]!.sandbox);
    expect(await lines()).toBe(1);
    const replies = (await redis.lrange(`${prefix}:gh-calls`, before, -1)).filter((c) => c.startsWith("POST /repos/octo/hello/issues/6/comments"));
    expect(replies).toHaveLength(1);
    expect(replies[0]).toContain("previous sandbox was gone; uncommitted work from the earlier run was lost");

    // The dead host comes back (same disk, same host id); the other one dies with a request already routed
    // to it: once its liveness lapses, the job is moved from its queue to the shared one and run here.
    const away = after.host!;
    const back = [hosts.a, hosts.b].find((h) => h.id() === home)!;
    await back.start();
    expect(back.id()).toBe(home);
    byId.get(away)!.kill("SIGKILL");
    const stranded = deliveryJobId("affinity-8");
    const mark = await redis.llen(`${prefix}:gh-calls`);
    await queues.add("agent", request(thread, 8), stranded, { via: "github-webhook" });
    expect((await queues.hostQueue("agent", away).getJob(stranded))?.id).toBe(stranded);
    expect(await waitForRoutedJob(queues, "agent", stranded)).toMatchObject({ queue: "agent", state: "completed" });
    expect((await placement()).host).toBe(home);
    expect(await lines()).toBe(1);
    const lost = (await redis.lrange(`${prefix}:gh-calls`, mark, -1)).filter((c) => c.startsWith("POST /repos/octo/hello/issues/6/comments"));
    expect(lost).toHaveLength(1);
    expect(lost[0]).toContain("previous sandbox was gone");
  }, 240_000);

  it("a teardown of threads on two hosts is split, one job per host, each destroying only its own sandbox; each host schedules its own sweep", async () => {
    // One run at a time per host, and the first run long enough that the second request goes to the other host.
    const hosts = twoHosts(
      [{ tool_calls: [{ name: "execute", args: { command: "sleep 2; echo made > notes.txt" } }] }, { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] }],
      { WORKER_CONCURRENCY: "1" },
    );
    opened.push(hosts);
    const { redis, prefix, queues } = hosts;
    await Promise.all([hosts.a.start(), hosts.b.start()]);
    const threads = [threadId({ kind: "issue", issueId: 7007 }), threadId({ kind: "issue", issueId: 7008 })];
    const ids = threads.map((_t, i) => deliveryJobId(`teardown-${i}`));
    await Promise.all(threads.map((t, i) => queues.add("agent", request(t, 10 + i), ids[i]!, { via: "github-webhook" })));
    for (const id of ids) expect((await waitForRoutedJob(queues, "agent", id)).failedReason).toBeUndefined();
    const sandboxes = await Promise.all(threads.map(async (t) => (await redis.get(threadSandboxKey(prefix, t)))!));
    const homes = await Promise.all(sandboxes.map((s) => redis.get(sandboxHostKey(prefix, s))));
    expect(new Set(homes).size).toBe(2);
    const onDisk = async (h: typeof hosts.a) => (await createSandboxProvider(readSandboxConfig({ SANDBOX_ROOT: join(h.dataDir, "sandboxes") })).list()).map((s) => s.id);
    expect([...(await onDisk(hosts.a)), ...(await onDisk(hosts.b))].sort()).toEqual([...sandboxes].sort());

    // Each host sweeps its own disk on its own schedule; the shared queue has no sweep to win.
    for (const h of [hosts.a, hosts.b]) expect((await queues.hostQueue("cleanup", h.id()).getJobSchedulers()).map((s) => s.key)).toContain("sandbox-sweep");
    expect(await queues.queues.cleanup.getJobSchedulers()).toEqual([]);

    const cleanup = deliveryJobId("teardown-close");
    await queues.add("cleanup", { installationId: 7, owner: "octo", repo: "hello", number: 6, threadIds: threads, merged: false, deliveryId: "teardown-close" }, cleanup, { via: "github-webhook" });
    const first = await waitForRoutedJob(queues, "cleanup", cleanup);
    const second = await waitForRoutedJob(queues, "cleanup", `${cleanup}@${homes[1]}`);
    expect(first).toMatchObject({ queue: hostQueueName("cleanup", homes[0]!), state: "completed", returnvalue: { destroyed: [sandboxes[0]] } });
    expect(second).toMatchObject({ queue: hostQueueName("cleanup", homes[1]!), state: "completed", returnvalue: { destroyed: [sandboxes[1]] } });
    expect([...(await onDisk(hosts.a)), ...(await onDisk(hosts.b))]).toEqual([]);
    for (const t of threads) expect(await redis.get(threadSandboxKey(prefix, t))).toBeNull();
  }, 240_000);
});
