import { describe, expect, it } from "vitest";
import { FollowUpQueue } from "../../src/threads/follow-ups.js";
import { afterStopLine, endStoppedWork, stoppedWorkNote, takeThreadStop } from "../../src/threads/thread-stop.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";
import { testSigner } from "../helpers/job-signer.js";

describe("stoppedWorkNote / afterStopLine (pure)", () => {
  it.each([
    [
      { by: "dana", dropped: 0 },
      "Stopped by @dana. Nothing continues it. A new message starts a new run on this thread.",
      "Note: the previous run on this thread was stopped by @dana before it finished. Do not resume or redo its work unless the request below asks for it.",
    ],
    [
      { by: "dana", dropped: 1 },
      "Stopped by @dana. 1 message sent while it ran was dropped, and nothing continues it. A new message starts a new run on this thread.",
      "Note: the previous run on this thread was stopped by @dana before it finished. 1 message sent to it was dropped unread. Do not resume or redo its work unless the request below asks for it.",
    ],
    [
      { by: null, dropped: 3 },
      "Stopped. 3 messages sent while it ran were dropped, and nothing continues it. A new message starts a new run on this thread.",
      "Note: the previous run on this thread was stopped before it finished. 3 messages sent to it were dropped unread. Do not resume or redo its work unless the request below asks for it.",
    ],
  ])("%j", (stop, note, line) => {
    expect(stoppedWorkNote(stop)).toBe(note);
    expect(afterStopLine(stop)).toBe(line);
  });
});

describe("endStoppedWork (real Redis)", () => {
  it("drops the thread's follow-ups (counted) and leaves a marker read exactly once", async () => {
    const prefix = uniquePrefix();
    const redis = testRedis();
    const followUps = new FollowUpQueue(redis, prefix, 5, testSigner());
    for (const text of ["a", "b", "c"]) await followUps.push("t1", { text, author: "erin", source: "github", at: 1 });
    const stop = await endStoppedWork(redis, prefix, followUps, "t1", { runId: "r1", by: "dana" }, 1000);
    expect(stop).toEqual({ runId: "r1", by: "dana", at: 1000, dropped: 3 });
    expect(await followUps.length("t1")).toBe(0);
    expect(await takeThreadStop(redis, prefix, "t2")).toBeNull();
    expect(await takeThreadStop(redis, prefix, "t1")).toEqual(stop);
    expect(await takeThreadStop(redis, prefix, "t1")).toBeNull();
  });
});
