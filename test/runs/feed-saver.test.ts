import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { FeedSaver } from "../../src/runs/feed-saver.js";
import { RunFeed } from "../../src/store/run-feed.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

describe("FeedSaver", () => {
  it("tells the thread's viewers of a checkpoint that changed the conversation, and of no other", async () => {
    const redis = testRedis();
    const sub = testRedis();
    const prefix = uniquePrefix();
    const feed = new RunFeed(redis, prefix);
    const saver = new FeedSaver({ redis, prefix: `${prefix}:ckpt`, feed });
    const thread = "gh:octo/hello#7";
    const heard: string[] = [];
    await sub.subscribe(feed.channel(thread));
    sub.on("message", (_channel, message: string) => heard.push(message));
    let version = 0;
    const put = async (messages: BaseMessage[]) => {
      version += 1;
      await saver.put(
        { configurable: { thread_id: thread, checkpoint_ns: "" } },
        { ...emptyCheckpoint(), id: uuid6(1), channel_values: { messages }, channel_versions: { messages: version } },
        { source: "loop", step: version, parents: {} },
        { messages: version },
      );
      // A publish reaches the subscriber after its command's reply: a round trip on it settles them.
      await sub.ping().catch(() => undefined);
      await redis.ping();
      return heard.splice(0).length;
    };
    const one = [new HumanMessage("fix it")];
    const two = [...one, new AIMessage("on it")];
    expect(await put(one)).toBe(1);
    // The middleware hooks' nodes: a checkpoint each, the same messages.
    expect(await put(one)).toBe(0);
    expect(await put(two)).toBe(1);
    expect(await put(two)).toBe(0);
    // A summarised conversation is shorter: the viewers re-read it.
    expect(await put([new AIMessage("summary")])).toBe(1);
    expect((await feed.steps(thread)).map((s) => [s.from, s.messages])).toEqual([
      [0, 1],
      [1, 2],
    ]);
  });
});
