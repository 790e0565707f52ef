import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { validate, deltaChannelHistoryTests, type CheckpointSaverTestInitializer } from "@langchain/langgraph-checkpoint-validation";
import { RedisSaver } from "../../../src/agent/checkpoint/redis-saver.js";
import { redisSocket, testRedis, uniquePrefix } from "../../helpers/redis.js";

// The validation suite calls vitest's describe/it/expect as globals; our vitest config does not enable globals.
Object.assign(globalThis, { describe, it, expect, beforeAll, afterAll, beforeEach, afterEach });

// The suite's own hooks run outside our per-test helper, so it owns one connection for the file.
let shared: Redis | undefined;
const initializer: CheckpointSaverTestInitializer<RedisSaver> = {
  checkpointerName: "RedisSaver",
  beforeAll() {
    shared = new Redis({ path: redisSocket(), maxRetriesPerRequest: null });
  },
  async afterAll() {
    await shared?.quit();
  },
  createCheckpointer() {
    if (!shared) throw new Error("beforeAll did not run");
    return new RedisSaver({ redis: shared, prefix: uniquePrefix() });
  },
};

validate(initializer);
deltaChannelHistoryTests(initializer);

describe("RedisSaver specifics", () => {
  it("keeps tenants apart by prefix and deleteThread removes every key of the thread", async () => {
    const redis = testRedis();
    const prefixA = uniquePrefix();
    const a = new RedisSaver({ redis, prefix: prefixA });
    const b = new RedisSaver({ redis, prefix: uniquePrefix() });
    const config = { configurable: { thread_id: "thread:with:colons", checkpoint_ns: "" } };
    const stored = await a.put(config, { ...emptyCheckpoint(), id: uuid6(1) }, { source: "input", step: -1, parents: {} }, {});
    await a.putWrites(stored, [["messages", ["hi"]]], "task-1");
    expect(await b.getTuple(config)).toBeUndefined();
    const tuple = await a.getTuple(config);
    expect(tuple?.pendingWrites).toEqual([["task-1", "messages", ["hi"]]]);

    expect((await redis.keys(`${prefixA}:*`)).length).toBeGreaterThan(3);
    await a.deleteThread("thread:with:colons");
    expect(await a.getTuple(config)).toBeUndefined();
    expect(await redis.keys(`${prefixA}:*`)).toEqual([]);
  });

  it("does not let a retried task overwrite a regular write, but special writes do overwrite", async () => {
    const saver = new RedisSaver({ redis: testRedis(), prefix: uniquePrefix() });
    const stored = await saver.put({ configurable: { thread_id: "t", checkpoint_ns: "" } }, { ...emptyCheckpoint(), id: uuid6(1) }, { source: "loop", step: 0, parents: {} }, {});
    await saver.putWrites(stored, [["value", "first"], ["__error__", "e1"]], "task");
    await saver.putWrites(stored, [["value", "second"], ["__error__", "e2"]], "task");
    const tuple = await saver.getTuple(stored);
    expect(tuple?.pendingWrites).toEqual(expect.arrayContaining([["task", "value", "first"], ["task", "__error__", "e2"]]));
    expect(tuple?.pendingWrites).toHaveLength(2);
  });

  it("puts a thread's keys under one cluster hash tag and expires them when a TTL is set", async () => {
    const redis = testRedis();
    const prefix = uniquePrefix();
    const saver = new RedisSaver({ redis, prefix, ttlSeconds: 600 });
    const stored = await saver.put({ configurable: { thread_id: "gh:o/r#4", checkpoint_ns: "" } }, { ...emptyCheckpoint(), id: uuid6(1), channel_values: { messages: ["m"] }, channel_versions: { messages: 1 } }, { source: "loop", step: 0, parents: {} }, { messages: 1 });
    await saver.putWrites(stored, [["messages", ["n"]]], "task");
    const keys = (await redis.keys(`${prefix}:*`)).filter((k) => k !== `${prefix}:threads`);
    expect(keys.length).toBe(5);
    for (const key of keys) {
      expect(key.startsWith(`${prefix}:{gh%3Ao%2Fr%234}:`)).toBe(true);
      expect(await redis.ttl(key)).toBeGreaterThan(590);
    }
    expect(await redis.ttl(`${prefix}:threads`)).toBe(-1);
  });
});
