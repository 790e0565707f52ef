import { describe, expect, it } from "vitest";
import { RunFeed, stepTimes, type FeedStep } from "../../src/store/run-feed.js";
import { RunIndex } from "../../src/store/run-index.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

describe("stepTimes: each message's start and duration from the feed", () => {
  const s = (at: number, from: number, messages: number): FeedStep => ({ at, from, messages });
  it.each([
    ["no feed: no times", [], ["human", "ai"], [null, null]],
    ["a request, an agent turn, its tool result", [s(100, 0, 1), s(350, 1, 2), s(900, 2, 3)], ["human", "ai", "tool"], [{ end: 100 }, { start: 100, end: 350 }, { start: 350, end: 900 }]],
    [
      "parallel tool results start when the agent's turn ended",
      [s(100, 0, 1), s(200, 1, 2), s(500, 2, 4)],
      ["human", "ai", "tool", "tool"],
      [{ end: 100 }, { start: 100, end: 200 }, { start: 200, end: 500 }, { start: 200, end: 500 }],
    ],
    ["messages older than the feed have no time; the next starts when it is known", [s(400, 2, 3)], ["human", "ai", "ai"], [null, null, { end: 400 }]],
    ["a repeated step (same count) keeps the first time", [s(100, 0, 1), s(300, 0, 1)], ["human"], [{ end: 100 }]],
    ["a follow-up from a person has only its time", [s(100, 1, 2), s(200, 2, 3)], ["ai", "human", "ai"], [null, { end: 100 }, { start: 100, end: 200 }]],
  ])("%s", (_name, steps, kinds, want) => {
    expect(stepTimes(steps as FeedStep[], kinds as string[])).toEqual(want);
  });
});

describe("RunFeed on a real Redis", () => {
  it("records the steps that grew the conversation and tells the thread's channel of steps and status changes", async () => {
    const redis = testRedis();
    const sub = testRedis();
    const prefix = uniquePrefix();
    const feed = new RunFeed(redis, prefix);
    const heard: string[] = [];
    sub.on("message", (_c: string, m: string) => heard.push(m));
    await sub.subscribe(feed.channel("t1"));
    await feed.step("t1", 0, 1);
    await feed.step("t1", 1, 1);
    await feed.step("t1", 1, 3);
    await new RunIndex(redis, prefix).put({ runId: "r1", repo: "o/r", threadId: "t1", trigger: "comment", source: "github", requester: "dana", title: "", status: "running", queuedAt: 1 });
    await new RunIndex(redis, prefix).update("r1", { status: "completed" });
    const steps = await feed.steps("t1");
    expect(steps.map((x) => [x.from, x.messages])).toEqual([
      [0, 1],
      [1, 3],
    ]);
    expect(steps[0]!.at).toBeGreaterThan(Date.now() - 60_000);
    await expect.poll(() => heard).toEqual(["step", "step", "step", "status", "status"]);
    expect(await redis.ttl(`${prefix}:run-feed:steps:t1`)).toBeGreaterThan(0);
  });
});
