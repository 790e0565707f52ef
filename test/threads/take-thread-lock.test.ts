import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { RunLocks } from "../../src/threads/run-lock.js";
import { ownerJobId, runOwner } from "../../src/threads/run-owner.js";
import { takeThreadLock } from "../../src/threads/thread-run.js";
import { LockLostError } from "../../src/shared/lock-lost.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const ctxFor = (locks: RunLocks, jobId: string, token: string, fence: () => Promise<void> = async () => undefined) => ({
  locks,
  jobId,
  runOwner: runOwner(jobId, token),
  fence,
  log: createLogger("silent"),
});

describe("a thread's run lock names one execution of a job", () => {
  it.each([
    ["job-1#tok-a", "job-1"],
    ["job__with__parts#1:2", "job__with__parts"],
    ["legacy-job", "legacy-job"],
  ])("ownerJobId(%s) = %s", (holder, job) => expect(ownerJobId(holder)).toBe(job));

  it("another execution of the same job is taken over only after the fence confirms the job's lock, and the earlier one can no longer renew", async () => {
    const locks = new RunLocks(testRedis(), uniquePrefix(), 60_000);
    expect(await takeThreadLock(ctxFor(locks, "job-1", "a"), "t")).toEqual({ taken: true });
    let fenced = 0;
    const second = ctxFor(locks, "job-1", "b", async () => void (fenced += 1));
    expect(await takeThreadLock(second, "t")).toEqual({ taken: true });
    expect(fenced).toBe(1);
    expect(await locks.holder("t")).toBe("job-1#b");
    expect(await locks.extend("t", "job-1#a")).toBe(false);
    expect(await locks.release("t", "job-1#a")).toBe(false);
  });

  // The race behind the partition test's `follow_up` outcome: the healed execution's release lands between this
  // execution's read of the holder and its take-over.
  it.each([
    ["releases it: this execution takes the free lock (never a follow-up of itself)", null, { taken: true }, "job-1#b"],
    ["releases it and another job takes the thread: that job keeps it", "job-2#c", { taken: false, holder: "job-1#a" }, "job-2#c"],
  ] as const)("the earlier execution, while this one fences, %s", async (_what, thief, result, holder) => {
    const locks = new RunLocks(testRedis(), uniquePrefix(), 60_000);
    await takeThreadLock(ctxFor(locks, "job-1", "a"), "t");
    const resumed = ctxFor(locks, "job-1", "b", async () => {
      await locks.release("t", "job-1#a");
      if (thief) await locks.acquire("t", thief);
    });
    expect(await takeThreadLock(resumed, "t")).toEqual(result);
    expect(await locks.holder("t")).toBe(holder);
  });

  it("an execution whose fence fails (it lost the job's lock) never takes the thread from the one that has it", async () => {
    const locks = new RunLocks(testRedis(), uniquePrefix(), 60_000);
    await takeThreadLock(ctxFor(locks, "job-1", "b"), "t");
    const stale = ctxFor(locks, "job-1", "a", async () => {
      throw new LockLostError("job-1");
    });
    await expect(takeThreadLock(stale, "t")).rejects.toBeInstanceOf(LockLostError);
    expect(await locks.holder("t")).toBe("job-1#b");
  });

  it("another job's lock is not taken; releaseJob frees any execution of a job, and only of that job", async () => {
    const locks = new RunLocks(testRedis(), uniquePrefix(), 60_000);
    await takeThreadLock(ctxFor(locks, "job-1", "a"), "t");
    expect(await takeThreadLock(ctxFor(locks, "job-2", "c"), "t")).toEqual({ taken: false, holder: "job-1#a" });
    expect(await locks.releaseJob("t", "job-")).toBe(false);
    expect(await locks.releaseJob("t", "job-2")).toBe(false);
    expect(await locks.releaseJob("t", "job-1")).toBe(true);
    expect(await locks.holder("t")).toBeNull();
  });
});
