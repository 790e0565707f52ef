import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { startProcess } from "../../src/main.js";
import { evictionProblem, readEvictionPolicy } from "../../src/store/eviction-policy.js";
import { connectRedis } from "../../src/store/redis.js";
import { testConfig } from "../helpers/github-app.js";
import { startPrivateRedis, type PrivateRedis } from "../helpers/private-redis.js";
import { uniquePrefix } from "../helpers/redis.js";

const servers: PrivateRedis[] = [];
afterAll(async () => {
  for (const s of servers) await s.kill();
});

describe("Redis must never evict (BullMQ's jobs and locks live there)", () => {
  it.each([
    ["noeviction", null],
    ["allkeys-lru", /^Redis's maxmemory-policy is allkeys-lru, not noeviction: .*set maxmemory-policy noeviction$/],
    ["volatile-ttl", /^Redis's maxmemory-policy is volatile-ttl, not noeviction/],
    [null, /^could not read Redis's maxmemory-policy/],
  ])("policy %s", (policy, expected) => {
    const problem = evictionProblem(policy);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toMatch(expected);
  });

  it("a process on a Redis that evicts says so in one warning line at start-up; on noeviction it says nothing", async () => {
    for (const [args, warned] of [
      [["--maxmemory-policy", "allkeys-lru"], true],
      [[], false],
    ] as const) {
      const server = await startPrivateRedis([...args]);
      servers.push(server);
      expect(await readEvictionPolicy(connectRedis(server.url))).toBe(args.length ? "allkeys-lru" : "noeviction");
      const lines: string[] = [];
      const log = createLogger("warn", "open-swe", { write: (l: string) => void lines.push(l) });
      const proc = await startProcess({ role: "web", config: testConfig({ QUEUE_REDIS_URL: server.url, QUEUE_PREFIX: uniquePrefix() }), log, port: 0, host: "127.0.0.1" });
      await proc.stop();
      const about = lines.filter((l) => l.includes("maxmemory-policy"));
      expect(about).toHaveLength(warned ? 1 : 0);
    }
  });
});
