import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger, rateLimitedLog } from "../../src/logger.js";
import { startProcess } from "../../src/main.js";
import { testConfig } from "../helpers/github-app.js";
import { startPrivateRedis, type PrivateRedis } from "../helpers/private-redis.js";
import { uniquePrefix } from "../helpers/redis.js";

const privates: PrivateRedis[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(privates.splice(0).map((r) => r.kill()));
});

describe("logs during a Redis outage", () => {
  it("stay JSON lines, a handful per source, and nothing goes to stderr", async () => {
    const own = await startPrivateRedis();
    privates.push(own);
    const lines: string[] = [];
    const consoleError = vi.spyOn(console, "error");
    const proc = await startProcess({
      role: "all",
      config: testConfig({ QUEUE_REDIS_URL: own.url, QUEUE_PREFIX: uniquePrefix(), SHUTDOWN_GRACE_SECONDS: "1" }),
      log: createLogger("info", "open-swe", { write: (l: string) => void lines.push(l) }),
      port: 0,
      host: "127.0.0.1",
    });
    const before = lines.length;
    await own.kill();
    await new Promise((r) => setTimeout(r, 2_500));
    const during = lines.slice(before).map((l) => JSON.parse(l) as { msg: string; level: number });
    await proc.stop();
    expect(consoleError).not.toHaveBeenCalled();
    const errors = during.filter((l) => /error/.test(l.msg));
    expect(errors.length).toBeGreaterThan(0);
    // one per source (the connection, each queue, each worker) at most, in a 30 s window
    const perMsg = new Map<string, number>();
    for (const l of errors) perMsg.set(l.msg, (perMsg.get(l.msg) ?? 0) + 1);
    for (const [msg, n] of perMsg) expect(n, msg).toBe(1);
  });

  it("rateLimitedLog: the first at once, then one per interval carrying the count held back", () => {
    vi.useFakeTimers();
    const out: Array<Record<string, unknown>> = [];
    const log = createLogger("info", "t", { write: (l: string) => void out.push(JSON.parse(l)) });
    const warn = rateLimitedLog(log, "redis connection error", 1_000);
    for (let i = 0; i < 50; i++) warn({ err: "ECONNREFUSED" });
    vi.advanceTimersByTime(1_001);
    warn({ err: "ECONNREFUSED" });
    vi.useRealTimers();
    expect(out.map((l) => [l.msg, l.suppressed])).toEqual([
      ["redis connection error", undefined],
      ["redis connection error", 49],
    ]);
  });
});
