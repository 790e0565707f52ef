// Two "machines" for multi-process tests: worker processes of the real app (test/fixtures/agent-worker.ts:
// GitHub nock'd inside it, every call logged to Redis), each with its own DATA_DIR, one real Redis.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import { RedisSaver } from "../../src/agent/checkpoint/redis-saver.js";
import { JobSigner } from "../../src/queue/job-provenance.js";
import { QueueSet } from "../../src/queue/queues.js";
import { readSandboxConfig } from "../../src/config/sandbox-config.js";
import { createSandboxProvider } from "../../src/sandbox/registry.js";
import { testPrivateKey } from "./github-app.js";
import { makeBareRemote } from "./git-remote.js";
import { fixtureArgs } from "./fixture-command.js";
import { ROOT } from "./paths.js";
import { redisUrl, testRedis, uniquePrefix } from "./redis.js";

export interface Host {
  dataDir: string;
  /** The worker's environment (a test may start another process on the same DATA_DIR). */
  env: Record<string, string>;
  /** The host id the worker made in its sandbox root. */
  id(): string;
  start(): Promise<ChildProcess>;
  /** The stdout lines of its processes since the test began (the app's log with `FIXTURE_LOG_LEVEL`). */
  lines: string[];
}

export interface TwoHosts {
  prefix: string;
  redis: ReturnType<typeof testRedis>;
  queues: QueueSet;
  a: Host;
  b: Host;
  remote: ReturnType<typeof makeBareRemote>;
  /** The thread's checkpointed conversation. */
  messages(threadId: string): Promise<BaseMessage[]>;
  /** Kills every process and destroys every sandbox (overlay mounts before directories). */
  close(): Promise<void>;
}

/**
 * One replay script (its JSON turns) for every run of every host; `env` overrides the workers' environment,
 * `perHost` one host's (e.g. its Redis URL through a proxy the test partitions).
 */
export function twoHosts(script: object[], env: Record<string, string> = {}, perHost: { a?: Record<string, string>; b?: Record<string, string> } = {}): TwoHosts {
  const prefix = uniquePrefix();
  const remote = makeBareRemote("octo", "hello");
  const shared = mkdtempSync(join(tmpdir(), "open-swe-hosts-"));
  const replay = join(shared, "run.json");
  writeFileSync(replay, JSON.stringify(script));
  const base = {
    APP_ID: "1",
    PRIVATE_KEY: testPrivateKey(),
    WEBHOOK_SECRET: "s",
    QUEUE_REDIS_URL: redisUrl(),
    QUEUE_PREFIX: prefix,
    OPEN_SWE_MODEL: `replay:${replay}`,
    GIT_REMOTE_TEMPLATE: remote.template,
    JOB_ATTEMPTS: "3",
    ...env,
  };
  const children: ChildProcess[] = [];
  const host = (name: "a" | "b"): Host => {
    const dataDir = mkdtempSync(join(tmpdir(), `open-swe-host-${name}-`));
    const own = { ...base, ...perHost[name], DATA_DIR: dataDir };
    const lines: string[] = [];
    return {
      dataDir,
      env: own,
      lines,
      id: () => readFileSync(join(dataDir, "sandboxes", ".host-id"), "utf8").trim(),
      async start() {
        const child = spawn(process.execPath, [...(await fixtureArgs(join(ROOT, "test/fixtures/agent-worker.ts"))), JSON.stringify(own)], {
          stdio: ["ignore", "pipe", "inherit"],
        });
        children.push(child);
        let rest = "";
        return new Promise((resolve, reject) => {
          child.stdout!.on("data", (d: Buffer) => {
            const parts = (rest + d.toString()).split("\n");
            rest = parts.pop()!;
            lines.push(...parts);
            if (parts.includes("ready")) resolve(child);
          });
          child.once("exit", (code) => reject(new Error(`worker ${name} exited early (${code})`)));
        });
      },
    };
  };
  const a = host("a");
  const b = host("b");
  const redis = testRedis();
  const queues = new QueueSet({ connection: redis, prefix, attempts: 3, signer: JobSigner.fromEnv(base) });
  const saver = new RedisSaver({ redis, prefix: `${prefix}:ckpt` });
  return {
    prefix,
    redis,
    queues,
    a,
    b,
    remote,
    messages: async (threadId) => ((await saver.getTuple({ configurable: { thread_id: threadId } }))?.checkpoint.channel_values as { messages?: BaseMessage[] } | undefined)?.messages ?? [],
    async close() {
      for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
      await queues.close();
      for (const h of [a, b]) {
        const provider = createSandboxProvider(readSandboxConfig({ SANDBOX_ROOT: join(h.dataDir, "sandboxes") }));
        for (const sb of await provider.list()) await provider.destroy(sb.id).catch(() => undefined);
      }
    },
  };
}

/** Polls a job wherever it was routed (shared or host queue) until it finished; its queue and outcome. */
export async function waitForRoutedJob(
  queues: QueueSet,
  name: "agent" | "cleanup",
  id: string,
  timeoutMs = 60_000,
): Promise<{ queue: string; state: string; returnvalue: unknown; failedReason: string | undefined }> {
  const started = Date.now();
  for (;;) {
    const job = await queues.findJob(name, id);
    const state = job ? await job.getState() : "unknown";
    if (job && (state === "completed" || state === "failed")) {
      const done = (await queues.findJob(name, id)) ?? job;
      return { queue: done.queueName, state, returnvalue: done.returnvalue, failedReason: done.failedReason };
    }
    if (Date.now() - started > timeoutMs) throw new Error(`${name} job ${id} did not finish within ${timeoutMs} ms (${state})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
