import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type { Redis } from "ioredis";
import { z } from "zod";
import { RedisSaver } from "../src/agent/checkpoint/redis-saver.js";
import { createOpenSweAgent } from "../src/agent/create-agent.js";
import { buildAgentMiddleware } from "../src/agent/middleware/build-agent-middleware.js";
import { createLogger } from "../src/logger.js";
import { startEmbeddedRedis } from "../src/store/embedded-redis.js";
import { connectRedis } from "../src/store/redis.js";

const round = (n: number) => Number(n.toFixed(3));

// A tool result of a few hundred bytes, different each step: roughly what `ls` or a short test run returns.
const work = tool(async ({ step }) => `step ${step}\n${"src/module.ts: ok\n".repeat(12)}`, {
  name: "work",
  description: "does a step of work",
  schema: z.object({ step: z.number() }),
});

/** A replayed run: `steps` tool calls, then completion; records when each model call starts. */
function script(steps: number, calls: number[]) {
  let m = fakeModel();
  const at = (msg: AIMessage) => () => {
    calls.push(performance.now());
    return msg;
  };
  for (let i = 0; i < steps; i++) {
    m = m.respond(at(new AIMessage({ content: `Step ${i}: running the next check.`, tool_calls: [{ name: "work", args: { step: i }, id: `c${i}`, type: "tool_call" }] })));
  }
  return m.respond(at(new AIMessage({ content: "", tool_calls: [{ name: "confirming_completion", args: { summary: "done" }, id: "end", type: "tool_call" }] })));
}

interface RunFigures {
  msPerStep: number;
  msPerStepAt10: number;
  msPerStepAt150: number;
  messages: BaseMessage[];
}

/** Median gap between model calls over the 10 steps ending at `end`: robust to a GC pause or a busy neighbour. */
function window(calls: number[], end: number): number {
  const hi = Math.min(end, calls.length - 1);
  const gaps: number[] = [];
  for (let i = Math.max(1, hi - 9); i <= hi; i++) gaps.push(calls[i]! - calls[i - 1]!);
  gaps.sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)]!;
}

async function run(checkpointer: BaseCheckpointSaver, steps: number): Promise<RunFigures> {
  const calls: number[] = [];
  const agent = createOpenSweAgent({
    model: script(steps, calls),
    systemPrompt: "bench",
    tools: [work],
    middleware: buildAgentMiddleware({
      modelCallLimit: steps + 10,
      workspaceRoot: "/workspace",
      readWorkspaceFile: async () => undefined,
      drainFollowUps: async () => [],
      notifyStepLimit: async () => {},
    }),
    checkpointer,
  });
  const t0 = performance.now();
  const out = await agent.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: randomUUID() }, recursionLimit: 10_000 });
  const total = performance.now() - t0;
  return {
    msPerStep: round(total / (steps + 1)),
    msPerStepAt10: round(window(calls, 10)),
    msPerStepAt150: round(window(calls, steps)),
    messages: out.messages as BaseMessage[],
  };
}

async function redisBytes(redis: Redis, prefix: string): Promise<{ bytes: number; keys: number }> {
  let bytes = 0;
  let keys = 0;
  let cursor = "0";
  do {
    const [next, batch] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 500);
    cursor = next;
    for (const key of batch) {
      const used = Number((await redis.call("MEMORY", "USAGE", key, "SAMPLES", "0")) ?? 0);
      bytes += used;
      keys += 1;
    }
  } while (cursor !== "0");
  return { bytes, keys };
}

/**
 * `npm run bench:checkpoints`: a replayed 150-step run through the harness with Redis checkpoints —
 * Redis bytes left vs the bytes of the run's messages, ms/step at step 10 vs the last step, and the
 * Redis saver vs langgraph's in-memory saver on the same script.
 */
export async function main(argv: string[]): Promise<void> {
  const stepsAt = argv.indexOf("--steps");
  const steps = stepsAt >= 0 ? Number(argv[stepsAt + 1]) : 150;
  const dir = mkdtempSync(join(tmpdir(), "open-swe-bench-ckpt-"));
  const server = await startEmbeddedRedis(dir, createLogger("silent"));
  const redis = connectRedis(server.url);
  try {
    await run(new MemorySaver(), 20); // warm-up: module loading and JIT
    const memory = await run(new MemorySaver(), steps);
    const prefix = `bench-${randomUUID().slice(0, 8)}`;
    const saver = new RedisSaver({ redis, prefix, ttlSeconds: 30 * 86400, keepCheckpoints: 5 });
    const withRedis = await run(saver, steps);
    const { bytes, keys } = await redisBytes(redis, prefix);
    const messageBytes = withRedis.messages.reduce((n, m) => n + Buffer.byteLength(JSON.stringify(m)), 0);
    const figures = {
      bench: "checkpoints",
      steps,
      messages: withRedis.messages.length,
      messageBytes,
      redisBytes: bytes,
      redisKeys: keys,
      redisVsMessagesRatio: round(bytes / messageBytes),
      redis: { msPerStep: withRedis.msPerStep, msPerStepAt10: withRedis.msPerStepAt10, msPerStepAtLast: withRedis.msPerStepAt150 },
      memory: { msPerStep: memory.msPerStep, msPerStepAt10: memory.msPerStepAt10, msPerStepAtLast: memory.msPerStepAt150 },
      lastVs10Ratio: round(withRedis.msPerStepAt150 / withRedis.msPerStepAt10),
      redisVsMemoryRatio: round(withRedis.msPerStep / memory.msPerStep),
    };
    console.log(`Redis after ${steps} steps: ${bytes} bytes in ${keys} keys for ${figures.messages} messages of ${messageBytes} bytes (ratio ${figures.redisVsMessagesRatio})`);
    console.log(`harness ms/step with Redis: ${withRedis.msPerStepAt10} at step 10, ${withRedis.msPerStepAt150} at step ${steps} (ratio ${figures.lastVs10Ratio})`);
    console.log(`Redis saver ${withRedis.msPerStep} ms/step vs MemorySaver ${memory.msPerStep} ms/step (ratio ${figures.redisVsMemoryRatio})`);
    console.log(JSON.stringify(figures));
  } finally {
    await redis.quit();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
