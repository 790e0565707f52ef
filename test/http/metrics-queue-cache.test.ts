import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { startPrivateRedis, type PrivateRedis } from "../helpers/private-redis.js";
import { uniquePrefix } from "../helpers/redis.js";
import { hostsKey } from "../../src/queue/host-routes.js";
import { startTestProcess } from "../helpers/test-process.js";

/** Commands the server has executed (Lua scripts' own calls included), INFO itself left out. */
async function commandsSoFar(redis: Redis): Promise<number> {
  const info = await redis.info("commandstats");
  let total = 0;
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (m[1] !== "info") total += Number(m[2]);
  return total;
}

describe("GET /metrics: queue depths cached for METRICS_QUEUE_CACHE_SECONDS", () => {
  let redis: PrivateRedis;
  let proc: RunningProcess;
  let stats: Redis;
  const prefix = uniquePrefix();
  beforeAll(async () => {
    // A Redis of this test's own: the counts are this process's commands and nobody else's.
    redis = await startPrivateRedis();
    proc = await startTestProcess("web", { QUEUE_REDIS_URL: redis.url, QUEUE_PREFIX: prefix, METRICS_QUEUE_CACHE_SECONDS: "2" });
    stats = new Redis({ path: redis.socket });
  });
  afterAll(async () => {
    await proc?.stop();
    stats?.disconnect();
    await redis?.kill();
  });

  const scrape = async () => {
    const before = await commandsSoFar(stats);
    const res = await fetch(`http://127.0.0.1:${proc.port}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/^open_swe_queue_jobs\{queue="agent",state="waiting"\} 0$/m);
    return (await commandsSoFar(stats)) - before;
  };

  it("the first scrape reads Redis; the ones within the window, even ten at once, read nothing; after it, one read again", async () => {
    const queues = Object.keys(proc.queues.queues).length;
    const first = await scrape();
    expect(first).toBeGreaterThanOrEqual(queues);
    const burst = await Promise.all(Array.from({ length: 10 }, () => scrape()));
    expect(burst.reduce((a, b) => a + b, 0)).toBe(0);
    await new Promise((r) => setTimeout(r, 2_100));
    // Ten concurrent scrapes after the window share one read.
    const before = await commandsSoFar(stats);
    await Promise.all(Array.from({ length: 10 }, () => fetch(`http://127.0.0.1:${proc.port}/metrics`).then((r) => r.text())));
    const shared = (await commandsSoFar(stats)) - before;
    expect(shared).toBeGreaterThanOrEqual(queues);
    expect(shared).toBeLessThanOrEqual(first);
  });

  it("an agent job routed to a host's own queue (agent@<host>) counts as an agent job", async () => {
    await stats.sadd(hostsKey(prefix), "host-b");
    await proc.queues.hostQueue("agent", "host-b").add("agent", { routed: true }, { jobId: "routed-1", delay: 60_000 });
    await new Promise((r) => setTimeout(r, 2_100));
    const text = await (await fetch(`http://127.0.0.1:${proc.port}/metrics`)).text();
    expect(text).toMatch(/^open_swe_queue_jobs\{queue="agent",state="delayed"\} 1$/m);
  });
});
