import { generateKeyPairSync, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { sign } from "@octokit/webhooks-methods";
import { Queue, Worker } from "bullmq";
import nock from "nock";
import { z } from "zod";
import { RedisSaver } from "../src/agent/checkpoint/redis-saver.js";
import { KEEP_CHECKPOINTS } from "../src/runs/agent-runtime.js";
import { createOpenSweAgent } from "../src/agent/create-agent.js";
import { buildAgentMiddleware } from "../src/agent/middleware/build-agent-middleware.js";
import { readConfig } from "../src/config/env.js";
import { createLogger } from "../src/logger.js";
import { startProcess } from "../src/main.js";
import { createSandboxProvider } from "../src/sandbox/registry.js";
import { startEmbeddedRedis } from "../src/store/embedded-redis.js";
import { connectRedis } from "../src/store/redis.js";
import { threadId } from "../src/shared/thread-id.js";
import { benchVariants, inVariant } from "./busy-core.js";
import { makeRemote, mockRunGitHub } from "./run-fixture.js";
import { phaseLine, setupPhaseMeans, setupTotals } from "./setup-phases.js";

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const round = (n: number) => Number(n.toFixed(3));

const noop = tool(async () => "ok", { name: "noop", description: "does nothing", schema: z.object({}) });

// Short assistant turns: a long echoed context would make deepagents summarise, which is another model call.
function script(steps: number) {
  let m = fakeModel();
  for (let i = 0; i < steps; i++) m = m.respond(new AIMessage({ content: "", tool_calls: [{ name: "noop", args: {}, id: `c${i}`, type: "tool_call" }] }));
  return m.respond(new AIMessage({ content: "", tool_calls: [{ name: "confirming_completion", args: { summary: "done" }, id: "end", type: "tool_call" }] }));
}

/**
 * ms per step through our harness (deepagents + middleware stack + Redis checkpoints, saved as a worker
 * saves them: durability sync, pruned, with a TTL) vs a bare loop; and the harness's CPU ms per step
 * (this process's, Redis's not included), which swings less with what else runs on the machine.
 */
async function stepOverhead(redisUrl: string, steps: number): Promise<{ harnessMs: number; harnessCpuMs: number; bareMs: number; ratio: number }> {
  const redis = connectRedis(redisUrl);
  const agent = createOpenSweAgent({
    model: script(steps),
    systemPrompt: "bench",
    tools: [noop],
    middleware: buildAgentMiddleware({
      modelCallLimit: steps + 10,
      workspaceRoot: "/workspace",
      readWorkspaceFile: async () => undefined,
      drainFollowUps: async () => [],
      notifyStepLimit: async () => {},
      onStatus: () => {},
    }),
    checkpointer: new RedisSaver({ redis, prefix: `bench-${randomUUID().slice(0, 8)}`, keepCheckpoints: KEEP_CHECKPOINTS, ttlSeconds: 86_400 }),
  });
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await agent.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: randomUUID() }, recursionLimit: 10_000, durability: "sync" });
  const cpu = process.cpuUsage(cpu0);
  const harnessMs = (performance.now() - t0) / (steps + 1);
  const harnessCpuMs = (cpu.user + cpu.system) / 1000 / (steps + 1);

  const bare = script(steps).bindTools!([noop]);
  const messages: BaseMessage[] = [new HumanMessage("go")];
  const t1 = performance.now();
  for (let i = 0; i <= steps; i++) {
    const ai = (await bare.invoke(messages)) as AIMessage;
    messages.push(ai);
    for (const call of ai.tool_calls ?? []) messages.push(new ToolMessage({ content: String(await noop.invoke({})), tool_call_id: call.id ?? "" }));
  }
  const bareMs = (performance.now() - t1) / (steps + 1);
  await redis.quit();
  return { harnessMs: round(harnessMs), harnessCpuMs: round(harnessCpuMs), bareMs: round(bareMs), ratio: round(harnessMs / bareMs) };
}

/** A no-op BullMQ job's add → processed latency on the same Redis: the floor for any queued run. */
async function queueRoundTrip(redisUrl: string, n: number): Promise<number[]> {
  const redis = connectRedis(redisUrl);
  const name = `bench-${randomUUID().slice(0, 8)}`;
  const done = new Map<string, () => void>();
  const worker = new Worker(name, async (job) => done.get(job.id!)?.(), { connection: redis, prefix: "bench" });
  await worker.waitUntilReady();
  const queue = new Queue(name, { connection: redis, prefix: "bench" });
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const id = `j${i}`;
    const finished = new Promise<void>((r) => done.set(id, r));
    const t = performance.now();
    await queue.add("x", {}, { jobId: id });
    await finished;
    out.push(performance.now() - t);
  }
  await worker.close();
  await queue.close();
  await redis.quit();
  return out;
}

/** Signed webhook → the first model call of the run, on a thread whose sandbox is already warm. */
async function webhookToFirstCall(redisUrl: string, runs: number): Promise<{ latencies: number[]; phases: Record<string, number> }> {
  const data = mkdtempSync(join(tmpdir(), "open-swe-bench-agent-"));
  const remoteRoot = mkdtempSync(join(tmpdir(), "open-swe-bench-remote-"));
  makeRemote(remoteRoot);
  const replay = join(data, "run.json");
  writeFileSync(replay, JSON.stringify([{ tool_calls: [{ name: "confirming_completion", args: { summary: "ok" } }] }]));
  const secret = "bench";
  const key = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
  const prefix = `bench${randomUUID().slice(0, 6)}`;
  const config = readConfig({
    APP_ID: "1",
    PRIVATE_KEY: key,
    WEBHOOK_SECRET: secret,
    QUEUE_REDIS_URL: redisUrl,
    QUEUE_PREFIX: prefix,
    DATA_DIR: data,
    LOG_LEVEL: "silent",
    JOB_ATTEMPTS: "1",
    OPEN_SWE_MODEL: `replay:${replay}`,
    GIT_REMOTE_TEMPLATE: `file://${remoteRoot}/{owner}/{repo}.git`,
  });
  const api = mockRunGitHub();
  // The run puts 👀 on the request as its first model call starts (as bench:scale): the wait ends there,
  // event-driven. Polling the checkpoint instead deserialised the thread's history every millisecond on
  // the worker's own event loop, slowing the very set-up being measured.
  let eyes: ((at: number) => void) | undefined;
  api.post(/\/reactions$/).reply(201, (_uri, body) => {
    if ((body as { content?: string }).content === "eyes") eyes?.(performance.now());
    return {};
  });
  const proc = await startProcess({ role: "all", config, log: createLogger("silent"), port: 0, host: "127.0.0.1", octokitDefaults: { retry: { enabled: false }, throttle: { enabled: false } } });
  const saverRedis = connectRedis(redisUrl);
  const saver = new RedisSaver({ redis: saverRedis, prefix: `${prefix}:ckpt` });
  const thread = threadId({ kind: "issue", issueId: 77 });
  const aiCount = async () =>
    (((await saver.getTuple({ configurable: { thread_id: thread } }))?.checkpoint.channel_values as { messages?: BaseMessage[] } | undefined)?.messages ?? []).filter((m) => AIMessage.isInstance(m))
      .length;
  const latencies: number[] = [];
  let warm = await setupTotals();
  try {
    for (let i = 0; i <= runs; i++) {
      const before = await aiCount();
      const body = JSON.stringify({
        action: "created",
        installation: { id: 9 },
        repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
        sender: { login: "dana", id: 3, type: "User" },
        issue: { number: 4, id: 77 },
        comment: { id: i, body: `@open-swe task ${i}`, user: { login: "dana", id: 3, type: "User" } },
      });
      const firstCall = new Promise<number>((r) => (eyes = r));
      const t = performance.now();
      await fetch(`http://127.0.0.1:${proc.port}/api/github/webhooks`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-github-event": "issue_comment", "x-github-delivery": randomUUID(), "x-hub-signature-256": await sign(secret, body) },
        body,
      });
      const calledAt = await Promise.race([firstCall, new Promise<undefined>((r) => setTimeout(r, 30_000, undefined))]);
      const deadline = Date.now() + 30_000;
      while ((await proc.redis.exists(`${prefix}:runlock:${thread}`)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      // Checked once the run is over: the model really answered (an AI message joined the thread).
      if (calledAt === undefined || (await aiCount()) === before) {
        const jobs = await proc.queues.queues.agent.getJobs(["completed", "failed", "active", "waiting", "delayed"]);
        const states = await Promise.all(jobs.map(async (j) => `${await j.getState()}:${JSON.stringify(j.returnvalue)}:${j.failedReason ?? ""}`));
        throw new Error(`run ${i} never reached the model: ${states.join(" | ")}`);
      }
      // The first run creates the sandbox and the mirror: it is the cold one, not measured.
      if (i > 0) latencies.push(calledAt - t);
      else warm = await setupTotals();
    }
  } finally {
    await proc.stop();
    // Overlay mounts must go before their directories do.
    const provider = createSandboxProvider(config.sandbox);
    for (const sb of await provider.list()) await provider.destroy(sb.id);
    await saverRedis.quit();
    nock.cleanAll();
    nock.enableNetConnect();
    rmSync(data, { recursive: true, force: true });
    rmSync(remoteRoot, { recursive: true, force: true });
  }
  return { latencies, phases: setupPhaseMeans(warm, await setupTotals()) };
}

/**
 * `npm run bench:agent [-- --steps N --runs R --variants idle,loaded]`: harness overhead per step, and
 * webhook → first model call with a warm sandbox, idle and with one core kept busy by `yes > /dev/null`
 * (the "loaded" variant), in the same run.
 */
export async function main(argv: string[]): Promise<void> {
  const flag = (name: string, fallback: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
  const steps = flag("--steps", 200);
  const runs = flag("--runs", 20);
  const variants = benchVariants(argv);
  const dir = mkdtempSync(join(tmpdir(), "open-swe-bench-redis-"));
  const redis = await startEmbeddedRedis(dir, createLogger("silent"));
  try {
    await stepOverhead(redis.url, 20); // warm-up: module loading and JIT
    const step = await stepOverhead(redis.url, steps);
    console.log(
      `harness per step: ${step.harnessMs} ms (${step.harnessCpuMs} ms CPU, load ${loadavg()[0]!.toFixed(2)}) vs bare model+tool loop ${step.bareMs} ms (ratio ${step.ratio}, ${steps} steps, scripted model, no-op tool, Redis checkpoints)`,
    );
    const queue = await queueRoundTrip(redis.url, 50);
    const q50 = round(pct(queue, 0.5));
    const firstModelCall: Record<string, { p50Ms: number; p99Ms: number; maxMs: number; runs: number; loadavg: string; setupPhasesMs: Record<string, number> }> = {};
    for (const variant of variants) {
      const { latencies: first, phases } = await inVariant(variant, () => webhookToFirstCall(redis.url, runs));
      const f = {
        p50Ms: round(pct(first, 0.5)),
        p99Ms: round(pct(first, 0.99)),
        maxMs: round(Math.max(...first)),
        runs: first.length,
        loadavg: loadavg()
          .map((l) => l.toFixed(2))
          .join(" "),
        setupPhasesMs: phases,
      };
      firstModelCall[variant] = f;
      console.log(
        `webhook → first model call (warm sandbox, ${variant === "loaded" ? "one core busy: yes > /dev/null" : "idle"}): p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms, max ${f.maxMs} ms | no-op BullMQ job round trip p50 ${q50} ms | ratio ${round(f.p50Ms / q50)} | load ${f.loadavg}`,
      );
      console.log(`  set-up before the first model call, mean ms per phase: ${phaseLine(phases)}`);
    }
    const idle = firstModelCall["idle"];
    for (const [variant, f] of Object.entries(firstModelCall)) console.log(`[goals, ${variant}] webhook → first model call p50 ${f.p50Ms} ms (goal ≤ 300 ms with one core busy)`);
    console.log(JSON.stringify({ bench: "agent", steps, step, firstModelCall, queueRoundTrip: { p50Ms: q50 }, ...(idle ? { firstCallVsQueueRatio: round(idle.p50Ms / q50) } : {}) }));
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
