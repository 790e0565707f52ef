import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { startPrivateRedis, type PrivateRedis } from "../helpers/private-redis.js";
import { uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

const probe = async (port: number | null, path: string) => {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5_000) });
  return [path, res.status, ((await res.json()) as { status: string }).status];
};

describe("the probes: /livez asks nothing of Redis, /readyz (and /health) does", () => {
  let redis: PrivateRedis;
  const procs: RunningProcess[] = [];
  beforeAll(async () => {
    redis = await startPrivateRedis();
    const env = { QUEUE_REDIS_URL: redis.url, QUEUE_PREFIX: uniquePrefix(), SHUTDOWN_GRACE_SECONDS: "1" };
    procs.push(await startTestProcess("web", env), await startTestProcess("worker", { ...env, HEALTH_PORT: "0" }));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    await redis?.kill();
  });

  it("with Redis up all answer 200; with its redis-server killed, /livez is still 200 and /readyz and /health are 503, on web and worker", async () => {
    for (const p of procs) {
      for (const path of ["/livez", "/readyz", "/health"]) expect(await probe(p.healthPort, path)).toEqual([path, 200, "ok"]);
    }
    await redis.kill();
    for (const p of procs) {
      expect(await probe(p.healthPort, "/livez")).toEqual(["/livez", 200, "ok"]);
      expect(await probe(p.healthPort, "/readyz")).toEqual(["/readyz", 503, "degraded"]);
      expect(await probe(p.healthPort, "/health")).toEqual(["/health", 503, "degraded"]);
    }
  }, 60_000);
});
