import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { sandboxHostKey, threadSandboxKey } from "../../src/queue/host-routes.js";
import type { AgentJob } from "../../src/queue/schemas.js";
import { runLockKey } from "../../src/store/keys.js";
import { threadId } from "../../src/shared/thread-id.js";
import { redisSocket, redisUrl } from "../helpers/redis.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import { twoHosts, waitForRoutedJob, type Host, type TwoHosts } from "../helpers/two-hosts.js";

// Slow (two worker processes, ~40 s alone): each worker reaches the one real Redis through a TCP proxy the test owns;
// the proxy of the host running a thread's request is frozen (or its connections reset) mid-run, while Redis
// and the other host stay up. GitHub is nock'd in each worker and every call it answers is counted in Redis.
const PR_URL = "https://github.com/octo/hello/pull/12";
const LOCK_MS = 1_500;
const dir = mkdtempSync(join(tmpdir(), "open-swe-partition-"));
// The run waits for this file before its reply turn: the test holds it between two model steps.
const GATE = join(dir, "gate");
// "GitHub" holds a new comment while `hold` exists (test/fixtures/agent-worker.ts GH_HOLD_DIR).
const HOLD_DIR = join(dir, "hold");
mkdirSync(HOLD_DIR);
const SCRIPT = [
  { tool_calls: [{ name: "execute", args: { command: "echo run >> NOTES.md" } }] },
  { tool_calls: [{ name: "commit_and_push", args: { message: "Add a note" } }] },
  { tool_calls: [{ name: "open_or_update_pull_request", args: { title: "Notes", body: "A note." } }] },
  { wait_for_file: GATE, tool_calls: [{ name: "github_comment", args: { body: `Noted: ${PR_URL}` } }] },
  { tool_calls: [{ name: "confirming_completion", args: { summary: "noted" } }] },
];

const opened: TwoHosts[] = [];
const proxies: TcpProxy[] = [];
afterAll(async () => {
  for (const p of proxies) p.resume();
  for (const h of opened) await h.close();
  for (const p of proxies) await p.close();
  rmSync(dir, { recursive: true, force: true });
});

function request(thread: string, number: number, n: number): AgentJob {
  return {
    installationId: 7,
    owner: "octo",
    repo: "hello",
    source: { kind: "github" },
    number,
    isPullRequest: false,
    threadId: thread,
    trigger: "comment",
    requester: { login: "dana", id: 31 },
    text: `note ${n}`,
    verdictAuthorized: false,
    comment: { kind: "issue_comment", id: 100 + n },
    deliveryId: `partition-${number}-${n}`,
  };
}

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const got = await probe();
    if (got) return got;
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function count(calls: string[], issue: number): Record<"replies" | "prOpened" | "prUpdated" | "reactions" | "replyEdits", number> {
  const n = (p: string) => calls.filter((c) => c.startsWith(p)).length;
  return {
    replies: n(`POST /repos/octo/hello/issues/${issue}/comments `),
    prOpened: n("POST /repos/octo/hello/pulls "),
    prUpdated: n("PATCH /repos/octo/hello/pulls/12 "),
    reactions: calls.filter((c) => c.includes("/reactions")).length,
    replyEdits: n("PATCH /repos/octo/hello/issues/comments/"),
  };
}

describe("e2e: a worker partitioned from Redis (Redis up, the other worker connected) never doubles a side effect", () => {
  it("frozen, cut, and frozen while GitHub has the reply but not yet answered: the partitioned host's run stops at once (one line, no crash); the other host finishes it; one reply, one PR update, one push a request", {
    timeout: 180_000,
    retry: 1,
  }, async () => {
    const proxyA = await startTcpProxy({ path: redisSocket() });
    const proxyB = await startTcpProxy({ path: redisSocket() });
    proxies.push(proxyA, proxyB);
    const hosts = twoHosts(
      SCRIPT,
      { HOST_ALIVE_MS: String(LOCK_MS), QUEUE_LOCK_DURATION_MS: String(LOCK_MS), QUEUE_STALLED_INTERVAL_MS: "750", GH_CALLS_REDIS_URL: redisUrl(), GH_HOLD_DIR: HOLD_DIR, FIXTURE_LOG_LEVEL: "info" },
      { a: { QUEUE_REDIS_URL: proxyA.url }, b: { QUEUE_REDIS_URL: proxyB.url } },
    );
    opened.push(hosts);
    const [procA, procB] = await Promise.all([hosts.a.start(), hosts.b.start()]);
    const byId = new Map<string, { host: Host; proc: ChildProcess; proxy: TcpProxy }>([
      [hosts.a.id(), { host: hosts.a, proc: procA, proxy: proxyA }],
      [hosts.b.id(), { host: hosts.b, proc: procB, proxy: proxyB }],
    ]);
    const { redis, prefix, queues, remote } = hosts;
    const t0 = Date.now();
    const lap = (what: string) => console.log(`${what} at ${Date.now() - t0} ms`);

    // Each fault on a thread of its own (its home host is whichever ran its first request).
    for (const [issue, fault] of [
      [8, "freeze"],
      [9, "cut"],
      // The reply reaches GitHub, then the host is cut off before GitHub's answer: its record never reaches Redis.
      [10, "reply"],
    ] as const) {
      const thread = threadId({ kind: "issue", issueId: 8000 + issue });
      const calls = async (from: number) =>
        (await redis.lrange(`${prefix}:gh-calls`, from, -1))
          .map((c) => c.slice(0, c.lastIndexOf(" @")))
          .filter((c) => c.includes(`/issues/${issue}/`) || c.includes("/pulls") || c.includes("/issues/comments/"));

      // Request 1, undisturbed: the thread's sandbox (and so its home host) is made; its calls are the baseline.
      writeFileSync(GATE, "");
      const start = await redis.llen(`${prefix}:gh-calls`);
      const first = deliveryJobId(`partition-${issue}-1`);
      await queues.add("agent", request(thread, issue, 1), first, { via: "github-webhook" });
      expect(await waitForRoutedJob(queues, "agent", first)).toMatchObject({ state: "completed", returnvalue: { outcome: "pr_opened", prUrl: PR_URL } });
      const baseline = count(await calls(start), issue);
      expect(baseline).toMatchObject({ replies: 1, reactions: 1 });
      // An undisturbed run never looks for its reply at GitHub.
      expect((await calls(start)).filter((c) => c.startsWith("GET ") && c.includes("/comments"))).toEqual([]);
      const homeId = (await redis.get(sandboxHostKey(prefix, (await redis.get(threadSandboxKey(prefix, thread)))!)))!;
      const home = byId.get(homeId)!;
      const other = [...byId.values()].find((h) => h !== home)!;
      lap(`${fault}: request 1 done on its home host`);

      // Request 2 goes to the home host's queue; the test holds it before its reply turn and partitions the host there.
      if (fault === "reply") writeFileSync(join(HOLD_DIR, "hold"), "");
      else rmSync(GATE);
      const mark = await redis.llen(`${prefix}:gh-calls`);
      const second = deliveryJobId(`partition-${issue}-2`);
      await queues.add("agent", request(thread, issue, 2), second, { via: "github-webhook" });
      expect((await queues.hostQueue("agent", homeId).getJob(second))?.id).toBe(second);
      if (fault === "reply") {
        await until("request 2's reply reached GitHub", async () => existsSync(join(HOLD_DIR, "held")));
        rmSync(join(HOLD_DIR, "hold"));
        home.proxy.freeze();
        writeFileSync(join(HOLD_DIR, "release"), "");
      } else {
        await until("request 2 updated its PR", async () => (await calls(mark)).some((c) => c.startsWith("PATCH /repos/octo/hello/pulls/12 ")));
        const messages = async () => (await hosts.messages(thread)).map((m) => `${m.getType()}:${(m as { name?: string }).name ?? ""}`);
        await until("the PR step was checkpointed", async () => (await messages()).at(-1) === "tool:open_or_update_pull_request");
        home.proxy[fault]();
      }
      lap(`${fault}: home host partitioned`);

      // Past the lock and the host's liveness: the other host forwards the job from the home queue to the shared
      // one and resumes it from the checkpoint (a new sandbox there); the partition is healed while it runs.
      await until("the other host took the job over", async () => (await (await queues.queues.agent.getJob(second))?.getState()) === "active");
      lap(`${fault}: taken over`);
      // The reply fault stays partitioned until the job is done: its record reaches Redis only afterwards.
      if (fault !== "reply") home.proxy.resume();
      writeFileSync(GATE, "");
      expect(await waitForRoutedJob(queues, "agent", second)).toMatchObject({ queue: "agent", state: "completed", returnvalue: { outcome: "pr_opened", prUrl: PR_URL } });
      if (fault === "reply") home.proxy.resume();
      expect(await redis.get(sandboxHostKey(prefix, (await redis.get(threadSandboxKey(prefix, thread)))!))).toBe(other.host.id());
      lap(`${fault}: request 2 done on the other host`);

      // The partitioned execution ends (it stops, or — were it not stopped — finishes the run itself).
      const logged = () => home.host.lines.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { level: number; msg: string; jobId?: string });
      await until("the partitioned execution ended", async () =>
        logged().some((l) => l.jobId === second && ["the execution that lost its job lock has stopped", "job done", "job failed"].includes(l.msg)),
      );

      // At GitHub, exactly what an undisturbed request does: one reply (and its one edit), one PR update, one 👀.
      const during = await calls(mark);
      expect(count(during, issue), during.join("\n")).toEqual({ ...baseline, prOpened: 0, prUpdated: 1 });
      // The resumed run found the reply at GitHub (one look at the thread) instead of posting it again.
      if (fault === "reply") expect(during.filter((c) => c.startsWith(`GET /repos/octo/hello/issues/${issue}/comments`))).toHaveLength(1);
      // The partitioned execution says once that it lost the lock, stops, and its process lives on.
      expect(
        logged()
          .filter((l) => l.jobId === second)
          .map((l) => l.msg),
      ).toContain("the execution that lost its job lock has stopped");
      const aboutLock = logged().filter((l) => l.jobId === second && l.level >= 40 && l.msg.includes("lock"));
      expect(aboutLock).toMatchObject([{ level: 40, msg: "job lock lost: this execution stops acting (the job resumes where its lock went)" }]);
      expect(logged().filter((l) => l.level >= 60)).toEqual([]);
      expect(home.proc.exitCode).toBeNull();

      // One push a request on the thread's branch.
      const branch = remote
        .git("for-each-ref", "--format=%(refname:short)", "refs/heads/open-swe/")
        .trim()
        .split("\n")
        .find((b) => b.includes(thread.slice(0, 8)))!;
      expect(remote.git("rev-list", "--count", `main..${branch}`).trim()).toBe("2");
      // The thread is free, and its next request runs on its new home, with nothing from the stale execution.
      expect(await redis.get(runLockKey(prefix, thread))).toBeNull();
      const third = deliveryJobId(`partition-${issue}-3`);
      await queues.add("agent", request(thread, issue, 3), third, { via: "github-webhook" });
      expect(await waitForRoutedJob(queues, "agent", third)).toMatchObject({ queue: `agent@${other.host.id()}`, state: "completed" });
      expect(count(await calls(mark), issue)).toEqual({ ...baseline, replies: 2 * baseline.replies, reactions: 2, replyEdits: 2 * baseline.replyEdits, prOpened: 0, prUpdated: 2 });
      expect(remote.git("rev-list", "--count", `main..${branch}`).trim()).toBe("3");
      lap(`${fault}: request 3 done`);
    }
  });
});
