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
function script(steps: number, calls: number[], cpu: number[]) {
  let m = fakeModel();
  const at = (msg: AIMessage) => () => {
    calls.push(performance.now());
    const { user, system } = process.cpuUsage();
    cpu.push((user + system) / 1000);
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
  /** This process's CPU ms per step (user + system) in the same windows: far less sensitive to busy neighbours than wall time. */
  cpuMsAt10: number;
  cpuMsAt150: number;
  messages: BaseMessage[];
}

/** Median gap between model calls over the 20 steps ending at `end`: robust to a GC pause or a busy neighbour. */
function window(calls: number[], end: number): number {
  const hi = Math.min(end, calls.length - 1);
  const gaps: number[] = [];
  for (let i = Math.max(1, hi - 19); i <= hi; i++) gaps.push(calls[i]! - calls[i - 1]!);
  gaps.sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)]!;
}

async function run(checkpointer: BaseCheckpointSaver, steps: number): Promise<RunFigures> {
  const calls: number[] = [];
  const cpu: number[] = [];
  const agent = createOpenSweAgent({
    model: script(steps, calls, cpu),
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
  const out = await agent.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: randomUUID() }, recursionLimit: 10_000, durability: "sync" });
  const total = performance.now() - t0;
  return {
    msPerStep: round(total / (steps + 1)),
    msPerStepAt10: round(window(calls, 20)),
    msPerStepAt150: round(window(calls, steps)),
    cpuMsAt10: round(window(cpu, 20)),
    cpuMsAt150: round(window(cpu, steps)),
    messages: out.messages as BaseMessage[],
  };
}

async function redisBytes(redis: Redis, prefix: string): Promise<{ bytes: number; keys: number }> {
  let bytes = 0;
  let keys = 0;
  let cursor = "0";
  do {
    const [next, batch] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
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
    // `--redis-only` skips the MemorySaver run, so a CPU profile (`node --cpu-prof`) shows the Redis run alone.
    const memory = argv.includes("--redis-only") ? { msPerStep: NaN, msPerStepAt10: NaN, msPerStepAt150: NaN, cpuMsAt10: NaN, cpuMsAt150: NaN } : await run(new MemorySaver(), steps);
    const prefix = `bench-${randomUUID().slice(0, 8)}`;
    await run(new RedisSaver({ redis, prefix: `${prefix}-warm`, keepCheckpoints: 5 }), 20); // the saver's code warm too
    const saver = new RedisSaver({ redis, prefix, ttlSeconds: 30 * 86400, keepCheckpoints: 5 });
    const withRedis = await run(saver, steps);
    // The step-ratio is the noisy figure on a shared machine: more runs (fresh savers), the median reported.
    const repeatAt = argv.indexOf("--repeat");
    const repeats = repeatAt >= 0 ? Number(argv[repeatAt + 1]) : 3;
    const again: RunFigures[] = [withRedis];
    for (let i = 1; i < repeats; i++) {
      again.push(await run(new RedisSaver({ redis, prefix: `${prefix}-r${i}`, ttlSeconds: 30 * 86400, keepCheckpoints: 5 }), steps));
    }
    const ratios = again.map((r) => r.msPerStepAt150 / r.msPerStepAt10).sort((a, b) => a - b);
    const median = ratios[Math.floor(ratios.length / 2)]!;
    const cpuRatios = again.map((r) => r.cpuMsAt150 / r.cpuMsAt10).sort((a, b) => a - b);
    const cpuMedian = cpuRatios[Math.floor(cpuRatios.length / 2)]!;
    const { bytes, keys } = await redisBytes(redis, `${prefix}:`);
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
      lastVs10Ratio: round(median),
      lastVs10Ratios: ratios.map(round),
      cpu: { msPerStepAt10: withRedis.cpuMsAt10, msPerStepAtLast: withRedis.cpuMsAt150 },
      cpuLastVs10Ratio: round(cpuMedian),
      cpuLastVs10Ratios: cpuRatios.map(round),
      redisVsMemoryRatio: round(withRedis.msPerStep / memory.msPerStep),
    };
    console.log(`Redis after ${steps} steps: ${bytes} bytes in ${keys} keys for ${figures.messages} messages of ${messageBytes} bytes (ratio ${figures.redisVsMessagesRatio})`);
    console.log(
      `harness ms/step with Redis: ${withRedis.msPerStepAt10} around step 10 (steps 1–20), ${withRedis.msPerStepAt150} over the last 20 steps (median ratio over ${repeats} runs ${figures.lastVs10Ratio}, range ${round(ratios[0]!)}–${round(ratios.at(-1)!)})`,
    );
    console.log(
      `harness CPU ms/step with Redis: ${withRedis.cpuMsAt10} around step 10, ${withRedis.cpuMsAt150} over the last 20 steps (median ratio ${figures.cpuLastVs10Ratio}, range ${round(cpuRatios[0]!)}–${round(cpuRatios.at(-1)!)})`,
    );
    console.log(`Redis saver ${withRedis.msPerStep} ms/step vs MemorySaver ${memory.msPerStep} ms/step (ratio ${figures.redisVsMemoryRatio})`);
    console.log(JSON.stringify(figures));
  } finally {
    await redis.quit();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
