import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { Send } from "@langchain/langgraph";
import { JsonPlusSerializer, emptyCheckpoint, uuid6, type Checkpoint } from "@langchain/langgraph-checkpoint";
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

  it("names a thread's namespaces: the graph's own and each subagent's (a subgraph run with the thread's config)", async () => {
    const saver = new RedisSaver({ redis: testRedis(), prefix: uniquePrefix() });
    const meta = { source: "loop" as const, step: 1, parents: {} };
    for (const ns of ["", "tools:b", "tools:a"]) await saver.put({ configurable: { thread_id: "t", checkpoint_ns: ns } }, { ...emptyCheckpoint(), id: uuid6(1) }, meta, {});
    await saver.put({ configurable: { thread_id: "other", checkpoint_ns: "tools:c" } }, { ...emptyCheckpoint(), id: uuid6(1) }, meta, {});
    expect(await saver.namespaces("t")).toEqual(["", "tools:a", "tools:b"]);
    expect(await saver.namespaces("none")).toEqual([]);
  });

  it("does not let a retried task overwrite a regular write, but special writes do overwrite", async () => {
    const saver = new RedisSaver({ redis: testRedis(), prefix: uniquePrefix() });
    const stored = await saver.put({ configurable: { thread_id: "t", checkpoint_ns: "" } }, { ...emptyCheckpoint(), id: uuid6(1) }, { source: "loop", step: 0, parents: {} }, {});
    await saver.putWrites(
      stored,
      [
        ["value", "first"],
        ["__error__", "e1"],
      ],
      "task",
    );
    await saver.putWrites(
      stored,
      [
        ["value", "second"],
        ["__error__", "e2"],
      ],
      "task",
    );
    const tuple = await saver.getTuple(stored);
    expect(tuple?.pendingWrites).toEqual(
      expect.arrayContaining([
        ["task", "value", "first"],
        ["task", "__error__", "e2"],
      ]),
    );
    expect(tuple?.pendingWrites).toHaveLength(2);
  });

  it("puts a thread's keys under one cluster hash tag and expires them when a TTL is set", async () => {
    const redis = testRedis();
    const prefix = uniquePrefix();
    const saver = new RedisSaver({ redis, prefix, ttlSeconds: 600 });
    const stored = await saver.put(
      { configurable: { thread_id: "gh:o/r#4", checkpoint_ns: "" } },
      { ...emptyCheckpoint(), id: uuid6(1), channel_values: { messages: [new HumanMessage("m")] }, channel_versions: { messages: 1 } },
      { source: "loop", step: 0, parents: {} },
      { messages: 1 },
    );
    await saver.putWrites(stored, [["messages", ["n"]]], "task");
    const keys = (await redis.keys(`${prefix}:*`)).filter((k) => k !== `${prefix}:threads:by-time`);
    expect(keys.some((k) => k.includes(":item:"))).toBe(true);
    expect(keys.length).toBe(6);
    for (const key of keys) {
      expect(key.startsWith(`${prefix}:{gh%3Ao%2Fr%234}:`)).toBe(true);
      expect(await redis.ttl(key)).toBeGreaterThan(590);
    }
    expect(await redis.ttl(`${prefix}:threads:by-time`)).toBe(-1);
    // The index of all threads forgets a thread once its keys have expired.
    await redis.zadd(`${prefix}:threads:by-time`, Date.now() - 601_000, "expired-thread");
    await saver.put({ configurable: { thread_id: "other", checkpoint_ns: "" } }, { ...emptyCheckpoint(), id: uuid6(1) }, { source: "loop", step: 0, parents: {} }, {});
    expect((await redis.zrange(`${prefix}:threads:by-time`, "0", "-1")).sort()).toEqual(["gh:o/r#4", "other"]);
  });

  it("moves a thread up the thread index once per interval, not on every put", async () => {
    const redis = testRedis();
    const prefix = uniquePrefix();
    const saver = new RedisSaver({ redis, prefix, ttlSeconds: 600 });
    const config = { configurable: { thread_id: "busy", checkpoint_ns: "" } };
    await saver.put(config, { ...emptyCheckpoint(), id: uuid6(1) }, { source: "loop", step: 0, parents: {} }, {});
    expect(await redis.zscore(`${prefix}:threads:by-time`, "busy")).not.toBeNull();
    await redis.zrem(`${prefix}:threads:by-time`, "busy");
    // The next step's put skips the index round trip...
    await saver.put(config, { ...emptyCheckpoint(), id: uuid6(2) }, { source: "loop", step: 1, parents: {} }, {});
    expect(await redis.zscore(`${prefix}:threads:by-time`, "busy")).toBeNull();
    // ...while another process (its own saver) indexes the thread on its first put.
    await new RedisSaver({ redis, prefix, ttlSeconds: 600 }).put(config, { ...emptyCheckpoint(), id: uuid6(3) }, { source: "loop", step: 2, parents: {} }, {});
    expect(await redis.zscore(`${prefix}:threads:by-time`, "busy")).not.toBeNull();
  });
});

/** A run's shape: each step appends an AI message and its tool result, and writes the new ones. */
async function growThread(saver: RedisSaver, thread: string, steps: number) {
  let config = { configurable: { thread_id: thread, checkpoint_ns: "" } } as { configurable: Record<string, string> };
  const messages: BaseMessage[] = [new HumanMessage({ content: "go", id: "h0" })];
  let checkpoint: Checkpoint = { ...emptyCheckpoint(), id: uuid6(1) };
  for (let step = 1; step <= steps; step++) {
    const ai = new AIMessage({ content: `step ${step}`, id: `a${step}`, tool_calls: [{ name: "work", args: { step }, id: `c${step}`, type: "tool_call" }] });
    const result = new ToolMessage({ content: `result ${step} ${"x".repeat(300)}`, tool_call_id: `c${step}`, id: `t${step}` });
    messages.push(ai, result);
    checkpoint = { ...checkpoint, id: uuid6(1), channel_values: { messages: [...messages] }, channel_versions: { messages: step } };
    config = (await saver.put(config, checkpoint, { source: "loop", step, parents: {} }, { messages: step })) as typeof config;
    // What langchain's agent writes at a tool step: the whole state in a Send packet, and the new messages.
    await saver.putWrites(
      config,
      [
        ["__pregel_tasks", new Send("tools", { messages: [...messages], lg_tool_call: { id: `c${step}` } })],
        ["messages", [result]],
      ],
      `task${step}`,
    );
  }
  return { config, messages };
}

async function bytesUnder(redis: Redis, prefix: string): Promise<number> {
  let total = 0;
  for (const key of await redis.keys(`${prefix}:*`)) total += Number(await redis.call("MEMORY", "USAGE", key, "SAMPLES", "0"));
  return total;
}

describe("RedisSaver storage grows with what a run does", () => {
  it("stores each message once however often the growing history is checkpointed and written, and reads it all back", async () => {
    const redis = testRedis();
    const prefix = uniquePrefix();
    const saver = new RedisSaver({ redis, prefix });
    const { config, messages } = await growThread(saver, "t", 60);

    expect(await redis.hlen(`${prefix}:{t}:item:`)).toBe(messages.length);

    const tuple = await saver.getTuple(config);
    const got = tuple?.checkpoint.channel_values["messages"] as BaseMessage[];
    expect(got.map((m) => [m.constructor.name, m.id, m.content])).toEqual(messages.map((m) => [m.constructor.name, m.id, m.content]));
    const send = tuple?.pendingWrites?.find((w) => w[1] === "__pregel_tasks")?.[2] as { node: string; args: { messages: BaseMessage[]; lg_tool_call: unknown } };
    expect(send.node).toBe("tools");
    expect(send.args.lg_tool_call).toEqual({ id: "c60" });
    expect(send.args.messages.map((m) => m.id)).toEqual(messages.map((m) => m.id));
    expect(ToolMessage.isInstance(send.args.messages.at(-1))).toBe(true);

    // An older checkpoint reads back its own, shorter history.
    const older = saver.list({ configurable: { thread_id: "t" } }, { limit: 30 });
    let last: BaseMessage[] = [];
    for await (const t of older) last = t.checkpoint.channel_values["messages"] as BaseMessage[];
    expect(last).toHaveLength(messages.length - 2 * 29);
  });

  it("keeps a pruned thread's bytes within a small multiple of its messages' bytes", async () => {
    const redis = testRedis();
    const prefix = uniquePrefix();
    const { messages } = await growThread(new RedisSaver({ redis, prefix, keepCheckpoints: 5 }), "t", 100);
    const messageBytes = messages.reduce((n, m) => n + JSON.stringify(m).length, 0);
    expect(await bytesUnder(redis, prefix)).toBeLessThan(3 * messageBytes);
  });

  it("prunes to the latest checkpoints and drops what only the pruned ones referenced, leaving resume intact", async () => {
    const redis = testRedis();
    const prefix = uniquePrefix();
    const saver = new RedisSaver({ redis, prefix, keepCheckpoints: 3 });
    const { config, messages } = await growThread(saver, "t", 40);
    const ids = await redis.zrange(`${prefix}:{t}:ids:`, "0", "-1");
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect(ids.length).toBeLessThanOrEqual(6);
    const cpKeys = await redis.keys(`${prefix}:{t}:cp:*`);
    expect(cpKeys).toHaveLength(ids.length);
    expect((await redis.keys(`${prefix}:{t}:w:*`)).length).toBeLessThanOrEqual(ids.length);
    expect(await redis.hlen(`${prefix}:{t}:blob:`)).toBe(ids.length);

    // A checkpoint that drops messages (a summarisation) leaves the old ones referenced by nothing once pruned.
    let cfg = config;
    const summary = [new HumanMessage({ content: "summary", id: "s" }), ...messages.slice(-2)];
    for (let i = 0; i < 8; i++) {
      cfg = (await saver.put(
        cfg,
        { ...emptyCheckpoint(), id: uuid6(1), channel_values: { messages: summary }, channel_versions: { messages: 100 + i } },
        { source: "loop", step: 100 + i, parents: {} },
        { messages: 100 + i },
      )) as typeof cfg;
    }
    expect(await redis.hlen(`${prefix}:{t}:item:`)).toBe(summary.length);
    const tuple = await saver.getTuple(cfg);
    expect((tuple?.checkpoint.channel_values["messages"] as BaseMessage[]).map((m) => m.id)).toEqual(summary.map((m) => m.id));
  });

  it("stores a message again when it was changed in place after an earlier put", async () => {
    const saver = new RedisSaver({ redis: testRedis(), prefix: uniquePrefix() });
    const text = new AIMessage({ content: "first", id: "a" });
    const blocks = new AIMessage({ content: [{ type: "text", text: "one" }], id: "b" });
    let config = { configurable: { thread_id: "t", checkpoint_ns: "" } } as { configurable: Record<string, string> };
    const put = async (version: number) => {
      const checkpoint = { ...emptyCheckpoint(), id: uuid6(1), channel_values: { messages: [text, blocks] }, channel_versions: { messages: version } };
      config = (await saver.put(config, checkpoint, { source: "loop", step: version, parents: {} }, { messages: version })) as typeof config;
      return (await saver.getTuple(config))?.checkpoint.channel_values["messages"] as BaseMessage[];
    };
    expect((await put(1)).map((m) => m.content)).toEqual(["first", [{ type: "text", text: "one" }]]);
    text.content = "second";
    (blocks.content as { type: string; text: string }[])[0]!.text = "two";
    expect((await put(2)).map((m) => m.content)).toEqual(["second", [{ type: "text", text: "two" }]]);
  });

  it("prunes only what pruned checkpoints referenced: items of a write landing mid-prune survive", async () => {
    const redis = testRedis();
    const prefix = uniquePrefix();
    const saver = new RedisSaver({ redis, prefix, keepCheckpoints: 2 });
    await growThread(saver, "t", 3);
    // As a concurrent putWrites leaves it between the prune's reads: an item no record it read refers to.
    await redis.hset(`${prefix}:{t}:item:`, "racing-item", "json\u0000{}");
    await growThread(saver, "t", 6);
    expect(await redis.hexists(`${prefix}:{t}:item:`, "racing-item")).toBe(1);
  });

  it("prunes from what it wrote without reading it back; what another process wrote it reads once, in one round trip", async () => {
    const redis = testRedis();
    const prefix = uniquePrefix();
    let pipelines = 0;
    let single = 0;
    const pipeline = redis.pipeline.bind(redis);
    redis.pipeline = ((...args: Parameters<Redis["pipeline"]>) => (pipelines++, pipeline(...args))) as Redis["pipeline"];
    for (const name of ["hmget", "hmgetBuffer", "hvals", "hgetall", "hgetallBuffer"] as const) {
      const original = (redis[name] as (...a: unknown[]) => unknown).bind(redis);
      (redis as unknown as Record<string, unknown>)[name] = (...a: unknown[]) => (single++, original(...a));
    }
    // 8 puts with 3 kept: the 7th prunes (7 checkpoints > 2 × 3), from what this saver wrote.
    await growThread(new RedisSaver({ redis, prefix, keepCheckpoints: 3 }), "t", 8);
    expect([pipelines, single]).toEqual([0, 0]);

    // Another process takes the thread over, its checkpoints stored before they named their values.
    for (const key of await redis.keys(`${prefix}:{t}:cp:*`)) await redis.hdel(key, "refs");
    const { config, messages } = await growThread(new RedisSaver({ redis, prefix, keepCheckpoints: 3 }), "t", 8);
    // Its first prune reads the 4 checkpoints it found in one round trip (and their values); its second reads nothing.
    expect(pipelines).toBe(1);
    expect(single).toBe(1);
    const ids = await redis.zrange(`${prefix}:{t}:ids:`, "0", "-1");
    expect(await redis.hlen(`${prefix}:{t}:blob:`)).toBe(ids.length);
    expect(await redis.hlen(`${prefix}:{t}:item:`)).toBe(messages.length);
    const latest = await new RedisSaver({ redis, prefix }).getTuple(config);
    expect((latest?.checkpoint.channel_values as { messages: BaseMessage[] }).messages.map((m) => m.id)).toEqual(messages.map((m) => m.id));
  });

  it("keeps an item that a dropped checkpoint's write and a kept one's both refer to", async () => {
    const redis = testRedis();
    const prefix = uniquePrefix();
    // The first checkpoint is another process's (an earlier attempt of the run), the rest this one's.
    const earlier = new RedisSaver({ redis, prefix, keepCheckpoints: 2 });
    const saver = new RedisSaver({ redis, prefix, keepCheckpoints: 2 });
    const note = new ToolMessage({ content: "only in writes", tool_call_id: "c", id: "x" });
    let config = { configurable: { thread_id: "t", checkpoint_ns: "" } } as { configurable: Record<string, string> };
    const ids: string[] = [];
    for (let step = 1; step <= 5; step++) {
      const by = step === 1 ? earlier : saver;
      config = (await by.put(config, { ...emptyCheckpoint(), id: uuid6(1) }, { source: "loop", step, parents: {} }, {})) as typeof config;
      ids.push(config.configurable["checkpoint_id"]!);
      // The 1st and the 4th checkpoints get the same write; the 5th put prunes the 1st to the 3rd.
      if (step === 1 || step === 4) await by.putWrites(config, [["messages", [note]]], `task${step}`);
    }
    expect(await redis.zrange(`${prefix}:{t}:ids:`, "0", "-1")).toEqual(ids.slice(3));
    const kept = await new RedisSaver({ redis, prefix }).getTuple({ configurable: { thread_id: "t", checkpoint_ns: "", checkpoint_id: ids[3]! } });
    expect(kept?.pendingWrites?.map(([, channel, value]) => [channel, (value as ToolMessage[]).map((m) => m.id)])).toEqual([["messages", ["x"]]]);
  });

  it("does not encode or write a loaded thread's history again on the run's first put", async () => {
    const redis = testRedis();
    const prefix = uniquePrefix();
    const { config, messages } = await growThread(new RedisSaver({ redis, prefix }), "t", 60);
    // A new run (another process): it loads the thread, then its first step appends one message.
    let encoded = 0;
    const serde = new JsonPlusSerializer();
    const dumps = serde.dumpsTyped.bind(serde);
    serde.dumpsTyped = (value: unknown) => (encoded++, dumps(value));
    const saver = new RedisSaver({ redis, prefix, serde });
    const loaded = (await saver.getTuple(config))!;
    const history = loaded.checkpoint.channel_values["messages"] as BaseMessage[];
    expect(history).toHaveLength(messages.length);
    const next = [...history, new AIMessage({ content: "next", id: "next" })];
    encoded = 0;
    // The put's script gets the items to write as its 4th argument after its 5 keys.
    const itemCounts: unknown[] = [];
    const evalsha = redis.evalsha.bind(redis) as (...a: unknown[]) => Promise<unknown>;
    (redis as unknown as Record<string, unknown>)["evalsha"] = (...a: unknown[]) => (itemCounts.push(a[2 + 5 + 3]), evalsha(...a));
    const put = await saver.put(
      config,
      { ...loaded.checkpoint, id: uuid6(1), channel_values: { messages: next }, channel_versions: { messages: 1000 } },
      { source: "loop", step: 61, parents: {} },
      { messages: 1000 },
    );
    // The checkpoint, its metadata, the list's placeholder and the one new message.
    expect(encoded).toBe(4);
    expect(itemCounts).toEqual(["1"]);
    expect(await redis.hlen(`${prefix}:{t}:item:`)).toBe(messages.length + 1);
    const back = (await new RedisSaver({ redis, prefix }).getTuple(put))?.checkpoint.channel_values["messages"] as BaseMessage[];
    expect(back.map((m) => m.id)).toEqual(next.map((m) => m.id));
  });

  it("refuses a keepCheckpoints that is not a positive integer", () => {
    expect(() => new RedisSaver({ redis: testRedis(), prefix: uniquePrefix(), keepCheckpoints: 0 })).toThrow(/keepCheckpoints/);
  });
});
