import examples from "@octokit/webhooks-examples";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { sendWebhook } from "../helpers/github-app.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

type Payload = { action?: string; repositories?: unknown[] };
const example = (name: string) =>
  (examples as unknown as { name: string; examples: Payload[] }[]).find((g) => g.name === name)!.examples.find((p) => p.action === "created" && p.repositories?.length)!;

describe("GET /metrics on the web role: the webhook intake and Node's default metrics", () => {
  let proc: RunningProcess;
  beforeAll(async () => {
    proc = await startTestProcess("web", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: uniquePrefix() });
  }, 60_000);
  afterAll(async () => proc?.stop());

  it("counts each delivery by event and result, a made-up event header as other; process_* and nodejs_* unprefixed", async () => {
    // The example's timestamps are numbers where GitHub's description says strings: sent as GitHub does.
    const installation = structuredClone(example("installation")) as Payload & { installation: Record<string, unknown> };
    for (const k of ["created_at", "updated_at"]) installation.installation[k] = new Date(Number(installation.installation[k]) * 1000).toISOString();
    expect((await sendWebhook(proc.port!, { event: "installation", payload: installation })).status).toBe(200);
    expect((await sendWebhook(proc.port!, { event: "installation", payload: installation, secret: "wrong" })).status).toBe(400);
    const forged = await fetch(`http://127.0.0.1:${proc.port}/api/github/webhooks`, { method: "POST", headers: { "content-type": "application/json", "x-github-event": "x-evil-0001" }, body: "{}" });
    expect(forged.status).toBe(400);
    const body = await (await fetch(`http://127.0.0.1:${proc.port}/metrics`)).text();
    expect(body).toMatch(/^open_swe_webhooks_total\{event="installation",result="accepted"\} 1$/m);
    expect(body).toMatch(/^open_swe_webhooks_total\{event="installation",result="refused"\} 1$/m);
    expect(body).toMatch(/^open_swe_webhooks_total\{event="other",result="refused"\} 1$/m);
    expect(body).not.toContain("x-evil");
    expect(body).toMatch(/^process_cpu_seconds_total \d/m);
    expect(body).toMatch(/^nodejs_heap_size_used_bytes \d/m);
    expect(body).not.toContain("open_swe_process_");
  });
});
