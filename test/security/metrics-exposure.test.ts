import { afterEach, describe, expect, it } from "vitest";
import { startHealthServer } from "../../src/http/health-server.js";
import { createLogger } from "../../src/logger.js";
import { startProcess, type RunningProcess } from "../../src/main.js";
import { testConfig } from "../helpers/github-app.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";

// Finding: /metrics (run counts, costs, models, queue depths) answered anyone by default, in production too.

const TOKEN = "metrics-token-0123456789abcdef";
const running: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop()));
});

async function web(env: Record<string, string>, host: string): Promise<RunningProcess> {
  const proc = await startProcess({ role: "web", config: testConfig({ QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: uniquePrefix(), ...env }), log: createLogger("silent"), port: 0, host });
  running.push(proc);
  return proc;
}
const scrape = (port: number | null, headers: Record<string, string> = {}) => fetch(`http://127.0.0.1:${port}/metrics`, { headers });

describe("/metrics in production", () => {
  it.each([
    ["APP_URL set", { APP_URL: "https://swe.example.com" }],
    ["NODE_ENV=production", { NODE_ENV: "production" }],
  ])("%s, no METRICS_TOKEN, listening on every address: 403 saying what to set, no metric", async (_, env) => {
    const proc = await web(env, "0.0.0.0");
    const res = await scrape(proc.port);
    expect(res.status).toBe(403);
    const text = await res.text();
    expect(text).toContain("set METRICS_TOKEN");
    expect(text).not.toContain("open_swe_");
  });

  it("with METRICS_TOKEN: 401 without it, the metrics with it", async () => {
    const proc = await web({ APP_URL: "https://swe.example.com", METRICS_TOKEN: TOKEN }, "0.0.0.0");
    expect((await scrape(proc.port)).status).toBe(401);
    expect((await scrape(proc.port, { authorization: `Bearer ${"x".repeat(TOKEN.length)}` })).status).toBe(401);
    const ok = await scrape(proc.port, { authorization: `Bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("open_swe_queue_jobs");
  });

  it("a listener bound to loopback, or a workstation (no APP_URL, no NODE_ENV), still answers without a token", async () => {
    const loopback = await web({ APP_URL: "https://swe.example.com" }, "127.0.0.1");
    expect((await scrape(loopback.port)).status).toBe(200);
    const laptop = await web({}, "0.0.0.0");
    expect((await scrape(laptop.port)).status).toBe(200);
  });

  it("the worker's health port: refused in production unless bound to loopback; /health still answers", async () => {
    const open = await startHealthServer({ redis: testRedis(), role: "worker", port: 0, host: "0.0.0.0", production: true, queueCacheMs: 0 });
    running.push({ stop: () => open.close() });
    expect((await scrape(open.port)).status).toBe(403);
    expect((await fetch(`http://127.0.0.1:${open.port}/health`)).status).toBe(200);
    const local = await startHealthServer({ redis: testRedis(), role: "worker", port: 0, host: "127.0.0.1", production: true, queueCacheMs: 0 });
    running.push({ stop: () => local.close() });
    expect((await scrape(local.port)).status).toBe(200);
  });
});
