import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { threadSandboxKey } from "../../src/queue/host-routes.js";
import { threadId } from "../../src/shared/thread-id.js";
import { twoHosts, waitForRoutedJob, type TwoHosts } from "../helpers/two-hosts.js";

const opened: TwoHosts[] = [];
afterAll(async () => {
  for (const h of opened) await h.close();
});

describe("e2e: a thread's sandbox whose filesystem went read-only", () => {
  it("is replaced by the next run, whose reply says why the uncommitted work was lost", async () => {
    const hosts = twoHosts([
      { tool_calls: [{ name: "execute", args: { command: "echo run >> notes.txt && echo lines=$(wc -l < notes.txt)" } }] },
      { tool_calls: [{ name: "confirming_completion", args: { summary: "noted" } }] },
    ]);
    opened.push(hosts);
    const { redis, prefix, queues } = hosts;
    await hosts.a.start();
    const thread = threadId({ kind: "issue", issueId: 8008 });
    const ask = async (n: number) => {
      const id = deliveryJobId(`ro-${n}`);
      await queues.add(
        "agent",
        {
          installationId: 7,
          owner: "octo",
          repo: "hello",
          number: 6,
          threadId: thread,
          trigger: "comment",
          requester: { login: "dana", id: 31 },
          text: `note ${n}`,
          comment: { kind: "issue_comment", id: 200 + n },
          deliveryId: `ro-${n}`,
        },
        id,
        { via: "github-webhook" },
      );
      return waitForRoutedJob(queues, "agent", id);
    };
    expect((await ask(1)).state).toBe("completed");
    const first = (await redis.get(threadSandboxKey(prefix, thread)))!;
    // The kernel's read-only remount of the workspace, as an ext4 disk image does when its journal aborts.
    const ws = execFileSync("findmnt", ["-rno", "TARGET"])
      .toString()
      .split("\n")
      .find((m) => m.includes(`/${first}/`) && m.endsWith("/workspace"));
    const target = ws ?? join(hosts.a.dataDir, "sandboxes", first, "workspace");
    execFileSync("mount", ["--bind", target, target]);
    execFileSync("mount", ["-o", "remount,bind,ro", target]);
    try {
      const before = await redis.llen(`${prefix}:gh-calls`);
      const done = await ask(2);
      expect(done.failedReason).toBeUndefined();
      expect(done.state).toBe("completed");
      expect(await redis.get(threadSandboxKey(prefix, thread))).not.toBe(first);
      const replies = (await redis.lrange(`${prefix}:gh-calls`, before, -1)).filter((c) => c.startsWith("POST /repos/octo/hello/issues/6/comments"));
      expect(replies).toHaveLength(1);
      expect(replies[0]).toContain("previous sandbox had a read-only filesystem (EROFS: its disk failed), so it was replaced with a new one");
    } finally {
      try {
        execFileSync("umount", ["-l", target], { stdio: "ignore" });
      } catch {}
    }
  }, 180_000);
});
