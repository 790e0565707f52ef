import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { KEEP_CHECKPOINTS, createAgentRuntime } from "../../src/runs/agent-runtime.js";
import { testConfig } from "../helpers/github-app.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";

describe("the worker's checkpointer", () => {
  it("expires a thread's checkpoints CHECKPOINT_TTL_DAYS after its last write and prunes old ones", async () => {
    const config = testConfig({ QUEUE_REDIS_URL: redisUrl(), DATA_DIR: mkdtempSync(join(tmpdir(), "open-swe-rt-")), CHECKPOINT_TTL_DAYS: "2" });
    expect(config.env.CHECKPOINT_TTL_DAYS).toBe(2);
    const redis = testRedis();
    const prefix = uniquePrefix();
    const saver = createAgentRuntime(config, redis, prefix).checkpointer;
    let cfg = { configurable: { thread_id: "t", checkpoint_ns: "" } };
    for (let step = 1; step <= 4 * KEEP_CHECKPOINTS; step++) {
      const checkpoint = { ...emptyCheckpoint(), id: uuid6(1), channel_values: { messages: [new HumanMessage(`m${step}`)] }, channel_versions: { messages: step } };
      cfg = (await saver.put(cfg, checkpoint, { source: "loop", step, parents: {} }, { messages: step })) as typeof cfg;
    }
    const keys = await redis.keys(`${prefix}:ckpt:{t}:*`);
    expect(keys.filter((k) => k.includes(":cp:")).length).toBeLessThanOrEqual(2 * KEEP_CHECKPOINTS);
    for (const key of keys) {
      const ttl = await redis.ttl(key);
      expect(ttl).toBeGreaterThan(2 * 86400 - 60);
      expect(ttl).toBeLessThanOrEqual(2 * 86400);
    }
  });

  it("defaults to 30 days", () => {
    expect(testConfig({}).env.CHECKPOINT_TTL_DAYS).toBe(30);
  });
});
