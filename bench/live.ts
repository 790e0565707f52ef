// Redis commands per second behind the run page's live view, and the runs page's time to first byte:
// a web process on a private redis-server, 20 signed-in viewers on one run, idle then busy (a step every
// 250 ms written as the worker writes it), then the runs page with 10,000 runs in the index.
// `--root DIR` measures another checkout's code (e.g. main's polling live view) in the same way.
import { spawn } from "node:child_process";
import { createHmac, generateKeyPairSync } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { serializeSigned } from "hono/utils/cookie";
import { Redis } from "ioredis";

const VIEWERS = 20;
const STEP_MS = 250;

async function commandsSinceReset(redis: Redis): Promise<number> {
  const stats = await redis.info("commandstats");
  return [...stats.matchAll(/cmdstat_([a-z|]+):calls=(\d+)/g)].filter(([, c]) => c !== "info" && c !== "config|resetstat").reduce((n, [, , k]) => n + Number(k), 0);
}

async function perSecond(redis: Redis, seconds: number, during?: () => Promise<void>): Promise<number> {
  await redis.config("RESETSTAT");
  const started = Date.now();
  let stop = false;
  const work = (async () => {
    while (!stop && during) {
      await during();
      await new Promise((r) => setTimeout(r, STEP_MS));
    }
  })();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  stop = true;
  await work;
  return Number(((await commandsSinceReset(redis)) / ((Date.now() - started) / 1000)).toFixed(2));
}

export async function main(argv: string[]): Promise<void> {
  const at = (name: string, d: string) => (argv.indexOf(name) >= 0 ? argv[argv.indexOf(name) + 1]! : d);
  const root = resolve(at("--root", process.cwd()));
  const seconds = Number(at("--seconds", "10"));
  const dir = mkdtempSync(join(tmpdir(), "bench-live-"));
  const socket = join(dir, "redis.sock");
  const server = spawn("redis-server", ["--port", "0", "--unixsocket", socket, "--save", "", "--appendonly", "no", "--dir", dir], { stdio: "ignore" });
  while (!existsSync(socket)) await new Promise((r) => setTimeout(r, 25));
  const redis = new Redis({ path: socket });
  const src = (p: string) => import(join(root, "src", p));
  const { startProcess } = await src("main.ts");
  const { readConfig } = await src("config/env.ts");
  const { createLogger } = await src("logger.ts");
  const { SessionStore } = await src("dashboard/session-store.ts");
  const { RunIndex } = await src("store/run-index.ts");
  const { RedisSaver } = await src("agent/checkpoint/redis-saver.ts");
  const feedSaver = existsSync(join(root, "src/runs/feed-saver.ts")) ? await src("runs/feed-saver.ts") : null;
  const feed = feedSaver ? await src("store/run-feed.ts") : null;
  const prefix = "bench";
  const privateKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
  const config = readConfig({
    APP_ID: "1",
    PRIVATE_KEY: privateKey,
    WEBHOOK_SECRET: "s",
    LOG_LEVEL: "silent",
    QUEUE_REDIS_URL: `unix:${socket}`,
    QUEUE_PREFIX: prefix,
    GITHUB_CLIENT_ID: "Iv1.bench",
    GITHUB_CLIENT_SECRET: "bench",
    DASHBOARD_LIVE_STREAMS_PER_ADDRESS: "64",
  });
  const proc = await startProcess({ role: "web", config, log: createLogger("silent"), port: 0, host: "127.0.0.1" });
  const base = `http://127.0.0.1:${proc.port}`;
  const secret = createHmac("sha256", privateKey).update("open-swe dashboard cookies v1").digest();
  const cookies: string[] = [];
  for (let i = 0; i < VIEWERS; i++) {
    const { id } = await new SessionStore(redis, prefix, 3600).create({ login: `v${i}`, userId: i + 1, admin: false, repos: ["octo/hello"], installations: { "octo/hello": 1 } });
    cookies.push((await serializeSigned("osw_session", id, secret)).split(";")[0]!);
  }
  const thread = "gh:octo/hello#1";
  await new RunIndex(redis, prefix).put({
    runId: "run1",
    repo: "octo/hello",
    threadId: thread,
    trigger: "comment",
    source: "github",
    requester: "v0",
    title: "bench",
    status: "running",
    queuedAt: Date.now(),
  });
  const saver = feedSaver ? new feedSaver.FeedSaver({ redis, prefix: `${prefix}:ckpt`, feed: new feed.RunFeed(redis, prefix) }) : new RedisSaver({ redis, prefix: `${prefix}:ckpt` });
  let messages: BaseMessage[] = [new HumanMessage("bench the live view")];
  const step = async () => {
    messages = [...messages, new AIMessage(`step ${messages.length}`)];
    await saver.put(
      { configurable: { thread_id: thread, checkpoint_ns: "" } },
      { ...emptyCheckpoint(), id: uuid6(1), channel_values: { messages }, channel_versions: { messages: messages.length } },
      { source: "loop", step: messages.length, parents: {} },
      { messages: messages.length },
    );
  };
  await step();
  const writerOnly = await perSecond(redis, seconds, step);
  const controllers = await Promise.all(
    cookies.map(async (cookie) => {
      const c = new AbortController();
      const res = await fetch(`${base}/app/runs/run1/events`, { headers: { cookie }, signal: c.signal, redirect: "manual" });
      if (res.status !== 200) throw new Error(`live view answered ${res.status}`);
      void (async () => {
        try {
          for await (const _ of res.body as unknown as AsyncIterable<Uint8Array>);
        } catch {}
      })();
      return c;
    }),
  );
  await new Promise((r) => setTimeout(r, 2000));
  const idle = await perSecond(redis, seconds);
  const busy = await perSecond(redis, seconds, step);
  for (const c of controllers) c.abort();
  // The runs page with 10,000 runs in the index (kept: the index's own trim is lifted for this).
  const big = new RunIndex(redis, prefix, 20_000);
  for (let i = 0; i < 10_000; i++)
    await big.put({
      runId: `r${i}`,
      repo: i % 3 === 0 ? "octo/hello" : "octo/other",
      threadId: `t${i}`,
      trigger: "comment",
      source: "github",
      requester: "v0",
      title: `run ${i}`,
      status: "completed",
      queuedAt: Date.now() - i * 1000,
    });
  const ttfb: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    const res = await fetch(`${base}/app/runs`, { headers: { cookie: cookies[0]! }, redirect: "manual" });
    ttfb.push(performance.now() - t);
    await res.text();
  }
  ttfb.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      root,
      viewers: VIEWERS,
      seconds,
      stepMs: STEP_MS,
      commandsPerSecond: { writerOnly, idle20Viewers: idle, busy20Viewers: busy, viewersCostWhileBusy: Number((busy - writerOnly).toFixed(2)) },
      runsPageTtfbMs: { median: Number(ttfb[10]!.toFixed(1)), p90: Number(ttfb[18]!.toFixed(1)) },
      loadavg: (await import("node:os"))
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(" "),
    }),
  );
  await proc.stop().catch(() => undefined);
  redis.disconnect();
  server.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}
