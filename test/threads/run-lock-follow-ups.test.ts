import { describe, expect, it } from "vitest";
import { FollowUpQueue } from "../../src/threads/follow-ups.js";
import { RunLocks } from "../../src/threads/run-lock.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";
import { testSigner } from "../helpers/job-signer.js";

describe("RunLocks (real Redis)", () => {
  it("lets one owner in across connections, releases only for the owner, expires", async () => {
    const prefix = uniquePrefix();
    const a = new RunLocks(testRedis(), prefix, 60_000);
    const b = new RunLocks(testRedis(), prefix, 60_000);
    const results = await Promise.all([a.acquire("t1", "job-a"), b.acquire("t1", "job-b")]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results[0] ? "job-a" : "job-b";
    const loser = winner === "job-a" ? "job-b" : "job-a";
    expect(await a.holder("t1")).toBe(winner);
    expect(await b.release("t1", loser)).toBe(false);
    expect(await a.holder("t1")).toBe(winner);
    expect(await a.extend("t1", winner)).toBe(true);
    expect(await a.release("t1", winner)).toBe(true);
    expect(await b.acquire("t1", loser)).toBe(true);

    const short = new RunLocks(testRedis(), prefix, 50);
    expect(await short.acquire("t2", "x")).toBe(true);
    await new Promise((r) => setTimeout(r, 120));
    expect(await short.acquire("t2", "y")).toBe(true);
  });
});

describe("FollowUpQueue (real Redis)", () => {
  it("keeps order, refuses past the cap (what is queued stays), drains once", async () => {
    const q = new FollowUpQueue(testRedis(), uniquePrefix(), 3, testSigner());
    const pushed = [];
    for (let i = 1; i <= 5; i++) pushed.push(await q.push("t", { text: `m${i}`, author: "alice", source: "github", at: i }));
    expect(pushed).toEqual([
      { length: 1, queued: true },
      { length: 2, queued: true },
      { length: 3, queued: true },
      { length: 3, queued: false },
      { length: 3, queued: false },
    ]);
    expect((await q.drain("t")).map((m) => m.text)).toEqual(["m1", "m2", "m3"]);
    expect(await q.drain("t")).toEqual([]);
    expect(await q.push("t", { text: "m6", author: "alice", source: "github", at: 6 })).toEqual({ length: 1, queued: true });
  });

  it("is shared across connections", async () => {
    const prefix = uniquePrefix();
    await new FollowUpQueue(testRedis(), prefix, 10, testSigner()).push("t", { text: "hi", author: "a", source: "slack", at: 1 });
    expect((await new FollowUpQueue(testRedis(), prefix, 10, testSigner()).drain("t"))[0]?.text).toBe("hi");
  });
});
