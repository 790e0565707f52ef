import { spawn, type ChildProcess } from "node:child_process";
import { createHmac } from "node:crypto";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { serializeSigned } from "hono/utils/cookie";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_COOKIE } from "../../src/dashboard/auth-routes.js";
import { SessionStore } from "../../src/dashboard/session-store.js";
import { FeedSaver } from "../../src/runs/feed-saver.js";
import { RunFeed } from "../../src/store/run-feed.js";
import { RunIndex } from "../../src/store/run-index.js";
import { testPrivateKey } from "../helpers/github-app.js";
import { fixtureArgs } from "../helpers/fixture-command.js";
import { ROOT } from "../helpers/paths.js";
import { startPrivateRedis, type PrivateRedis } from "../helpers/private-redis.js";
import { openLiveStream, type LiveStream } from "./live-stream-client.js";

const PREFIX = "live";
const THREAD = "gh:octo/hello#7";
const RUN = "j__live__1";

/** A real web process (the web role's start-up) on the private Redis: its base URL. */
async function startWeb(redisUrl: string): Promise<{ base: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [...(await fixtureArgs(join(ROOT, "test/fixtures/web-process.ts"))), redisUrl, PREFIX], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, PRIVATE_KEY: testPrivateKey() },
  });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`web process exited (${code}) before listening`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const m = /^port (\d+)$/.exec(line);
      if (m) resolve({ base: `http://127.0.0.1:${m[1]}`, child });
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** Calls of one Redis command since the last CONFIG RESETSTAT. */
async function calls(redis: Redis, command: string): Promise<number> {
  const stats = await redis.info("commandstats");
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
}

/** The commands the other clients sent since the last CONFIG RESETSTAT, with their counts (ours: INFO, CONFIG). */
async function othersCalls(redis: Redis): Promise<Record<string, number>> {
  const stats = await redis.info("commandstats");
  return Object.fromEntries([...stats.matchAll(/cmdstat_([a-z|]+):calls=(\d+)/g)].filter(([, c]) => c !== "info" && c !== "config|resetstat").map(([, c, k]) => [c, Number(k)]));
}

describe("live run view: one shared subscription per run per web process, no reads while idle, Last-Event-ID resume", () => {
  let redisServer: PrivateRedis;
  let redis: Redis;
  let webs: { base: string; child: ChildProcess }[] = [];
  /** 21 people signed in (a session may hold only 8 live views). */
  const cookies: string[] = [];
  let saver: FeedSaver;
  let messages: BaseMessage[] = [];
  const streams: LiveStream[] = [];

  async function step(...added: BaseMessage[]): Promise<void> {
    messages = [...messages, ...added];
    await saver.put(
      { configurable: { thread_id: THREAD, checkpoint_ns: "" } },
      { ...emptyCheckpoint(), id: uuid6(1), channel_values: { messages }, channel_versions: { messages: messages.length } },
      { source: "loop", step: messages.length, parents: {} },
      { messages: messages.length },
    );
  }

  beforeAll(async () => {
    redisServer = await startPrivateRedis();
    redis = new Redis({ path: redisServer.socket, maxRetriesPerRequest: null });
    webs = await Promise.all([startWeb(redisServer.url), startWeb(redisServer.url)]);
    const secret = createHmac("sha256", testPrivateKey()).update("open-swe dashboard cookies v1").digest();
    for (let i = 0; i < 21; i++) {
      const { id } = await new SessionStore(redis, PREFIX, 3600).create({ login: `viewer${i}`, userId: 100 + i, admin: false, repos: ["octo/hello"], installations: { "octo/hello": 4242 } });
      cookies.push((await serializeSigned(SESSION_COOKIE, id, secret)).split(";")[0]!);
      // GitHub's answer that each may read octo/hello now, as the dashboard caches it (these web processes reach no GitHub).
      await redis.set(`${PREFIX}:perm-read:octo/hello:viewer${i}`, "1", "EX", 3600);
    }
    saver = new FeedSaver({ redis, prefix: `${PREFIX}:ckpt`, feed: new RunFeed(redis, PREFIX) });
    await new RunIndex(redis, PREFIX).put({
      runId: RUN,
      repo: "octo/hello",
      threadId: THREAD,
      trigger: "comment",
      source: "github",
      requester: "dana",
      title: "Fix the flaky test",
      status: "running",
      queuedAt: Date.now(),
      startedAt: Date.now(),
    });
    await step(new HumanMessage("Fix the flaky test"));
  }, 240_000);

  afterAll(async () => {
    for (const s of streams) s.close();
    await Promise.all(webs.map((w) => stopChild(w.child)));
    redis?.disconnect();
    await redisServer?.kill();
  });

  it("20 viewers on two web processes share two subscriptions; idle costs no command; a step reaches all of them with one read per process", { timeout: 60_000 }, async () => {
    for (let i = 0; i < 20; i++) streams.push(await openLiveStream(`${webs[i % 2]!.base}/app/runs/${RUN}/events`, cookies[i]!));
    // Every viewer was sent the conversation so far.
    await Promise.all(streams.map((s) => s.waitFor((e) => e.event === "message" && e.id === "1")));
    const channel = new RunFeed(redis, PREFIX).channel(THREAD);
    expect(await redis.pubsub("NUMSUB", channel)).toEqual([channel, 2]);

    // Idle: the run does nothing for a while, and neither do the 20 viewers.
    await redis.config("RESETSTAT");
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await othersCalls(redis)).toEqual({});

    // A step: each process reads the checkpoint once and every viewer gets the new message.
    await redis.config("RESETSTAT");
    await step(new AIMessage({ content: "Looking at the test.", tool_calls: [{ id: "c1", name: "execute", args: { command: "npm test" } }] }));
    await Promise.all(streams.map((s) => s.waitFor((e) => e.event === "message" && e.id === "2")));
    expect(await calls(redis, "zrevrangebylex")).toBe(2);
    const last = streams[0]!.events.findLast((e) => e.event === "message")!;
    expect(JSON.parse(last.data).html).toMatch(/Tool call · <code>execute<\/code>[\s\S]*npm test/);
  });

  it("a reconnect with Last-Event-ID gets only the messages after it", { timeout: 30_000 }, async () => {
    const resumed = await openLiveStream(`${webs[0]!.base}/app/runs/${RUN}/events`, cookies[20]!, "1");
    streams.push(resumed);
    await resumed.waitFor((e) => e.event === "message" && e.id === "2");
    expect(resumed.events.filter((e) => e.event === "message").map((e) => e.id)).toEqual(["2"]);
  });

  it("the run's end reaches every viewer, their streams end, and the subscriptions with them", { timeout: 30_000 }, async () => {
    await new RunIndex(redis, PREFIX).update(RUN, { status: "completed", finishedAt: Date.now() });
    await Promise.all(streams.map((s) => s.waitFor((e) => e.event === "done")));
    await Promise.all(streams.map((s) => s.ended));
    const channel = new RunFeed(redis, PREFIX).channel(THREAD);
    await expect.poll(() => redis.pubsub("NUMSUB", channel)).toEqual([channel, 0]);
  });
});
