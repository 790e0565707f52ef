import { sign } from "@octokit/webhooks-methods";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { sendWebhook } from "../helpers/github-app.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";
import { pumpFor } from "../helpers/stream-intake.js";
import { findJob } from "../helpers/jobs.js";

const comment = (body: string) => ({
  action: "created",
  installation: { id: 77 },
  repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
  sender: { login: "alice", id: 1, type: "User" },
  issue: { number: 5, id: 5005, pull_request: { url: "x" } },
  comment: { id: 900, body, user: { login: "alice", id: 1, type: "User" } },
});

describe("webhook endpoint: verification before parsing, limits, idempotency", () => {
  let proc: RunningProcess;
  let pump: ReturnType<typeof pumpFor>;
  // Counted once the intake pump has moved every webhook into BullMQ (WEBHOOK_INTAKE=stream): a zero cannot be a pump not yet run.
  const total = async () => {
    await pump.drained();
    return (await proc.queues.queues.agent.count()) + (await proc.queues.queues.command.count());
  };
  beforeAll(async () => {
    const prefix = uniquePrefix();
    proc = await startTestProcess("web", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, MAX_WEBHOOK_BYTES: "4096" });
    pump = pumpFor(proc, prefix);
  });
  afterAll(async () => {
    await pump?.stop();
    await proc?.stop();
  });

  it("a valid mention is enqueued once, however often GitHub redelivers it", async () => {
    const first = await sendWebhook(proc.port!, { event: "issue_comment", payload: comment("@open-swe fix it"), deliveryId: "d-1" });
    const again = await sendWebhook(proc.port!, { event: "issue_comment", payload: comment("@open-swe fix it"), deliveryId: "d-1" });
    expect([first.status, again.status]).toEqual([200, 200]);
    await pump.drained();
    expect(await proc.queues.queues.agent.count()).toBe(1);
    const job = await findJob(proc.queues.queues.agent, deliveryJobId("d-1"));
    expect(job?.data).toMatchObject({ owner: "octo", repo: "hello", number: 5, isPullRequest: true, text: "fix it", requester: { login: "alice" } });
  });

  it("a bad signature is refused with 400 and nothing is queued", async () => {
    const before = await total();
    const res = await sendWebhook(proc.port!, { event: "issue_comment", payload: comment("@open-swe fix it"), secret: "wrong" });
    expect(res.status).toBe(400);
    expect(res.body).toMatch(/signature does not match/);
    expect(await total()).toBe(before);
  });

  it("a signature over a different body is refused (no re-serialisation trick)", async () => {
    const before = await total();
    const body = JSON.stringify(comment("@open-swe fix it"));
    const res = await fetch(`http://127.0.0.1:${proc.port}/api/github/webhooks`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "issue_comment",
        "x-github-delivery": "d-forged",
        "x-hub-signature-256": await sign("test-webhook-secret", JSON.stringify(JSON.parse(body), null, 2)),
      },
      body,
    });
    expect(res.status).toBe(400);
    expect(await total()).toBe(before);
  });

  it("malformed JSON with a valid signature is a 400", async () => {
    const before = await total();
    const res = await sendWebhook(proc.port!, { event: "issue_comment", payload: null, rawBody: '{"action": "created",', offContract: "the body is not JSON: the point of this test" });
    expect(res.status).toBe(400);
    expect(res.body).toMatch(/Invalid JSON/);
    expect(await total()).toBe(before);
  });

  it("an oversized body is a 413 before any parsing", async () => {
    const before = await total();
    const res = await sendWebhook(proc.port!, { event: "issue_comment", payload: comment(`@open-swe ${"x".repeat(10_000)}`) });
    expect(res.status).toBe(413);
    expect(await total()).toBe(before);
  });

  it("missing headers and wrong content type are 4xx", async () => {
    const url = `http://127.0.0.1:${proc.port}/api/github/webhooks`;
    expect((await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status).toBe(400);
    expect((await fetch(url, { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" })).status).toBe(415);
  });

  it("/health reports Redis reachability; unknown paths are 404", async () => {
    const res = await fetch(`http://127.0.0.1:${proc.port}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok", role: "web", redis: "up" });
    expect((await fetch(`http://127.0.0.1:${proc.port}/nope`)).status).toBe(404);
  });

  it("a bot's comment and a comment without a mention queue nothing", async () => {
    const before = await total();
    const bot = { ...comment("@open-swe fix it"), sender: { login: "open-swe[bot]", id: 9, type: "Bot" } };
    expect((await sendWebhook(proc.port!, { event: "issue_comment", payload: bot })).status).toBe(200);
    expect((await sendWebhook(proc.port!, { event: "issue_comment", payload: comment("thanks all") })).status).toBe(200);
    expect(await total()).toBe(before);
  });
});

describe("/health when Redis is down", () => {
  it("answers 503", async () => {
    const proc = await startTestProcess("web", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: uniquePrefix() });
    try {
      proc.redis.disconnect();
      const res = await fetch(`http://127.0.0.1:${proc.port}/health`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ redis: "down" });
    } finally {
      await proc.stop();
    }
  });
});
