import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/paths.js";
import type { RunningProcess } from "../../src/main.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

const TOKEN = "worker-metrics-token-0123456789";

describe("GET /metrics on the worker role (its health server)", () => {
  let proc: RunningProcess;
  beforeAll(async () => {
    proc = await startTestProcess("worker", {
      QUEUE_REDIS_URL: redisUrl(),
      QUEUE_PREFIX: uniquePrefix(),
      HEALTH_PORT: "0",
      METRICS_TOKEN: TOKEN,
      SHUTDOWN_GRACE_SECONDS: "1",
      OPEN_SWE_COMMIT: "0123abcd",
    });
  });
  afterAll(async () => proc?.stop());

  it("answers 401 without the bearer token and the Prometheus text with it, queue depths included", async () => {
    const url = `http://127.0.0.1:${proc.healthPort}/metrics`;
    const anonymous = await fetch(url);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await fetch(url, { headers: { authorization: `Basic ${TOKEN}` } })).status).toBe(401);
    const res = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const body = await res.text();
    for (const state of ["waiting", "active", "delayed", "failed"]) expect(body).toMatch(new RegExp(`^open_swe_queue_jobs\\{queue="agent",state="${state}"\\} 0$`, "m"));
    expect(body).toContain("# TYPE open_swe_runs_total counter");
    expect(body).toContain("# TYPE open_swe_tool_duration_seconds histogram");
    const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(body).toContain(`open_swe_build_info{version="${version}",commit="0123abcd",node="${process.versions.node}"} 1`);
    expect((await fetch(`http://127.0.0.1:${proc.healthPort}/health`)).status).toBe(200);
  });
});
