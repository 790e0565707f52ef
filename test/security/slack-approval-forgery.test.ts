import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalStore } from "../../src/approvals/approval-store.js";
import type { RunningProcess } from "../../src/main.js";
import { AgentJob } from "../../src/queue/schemas.js";
import { slackSignature } from "../../src/sources/slack/signature.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";
import { clickBody } from "../sources/slack/slack-click.js";
import { SLACK_SECRET } from "../sources/slack/slack-fixture.js";

/**
 * Forged Approve clicks: the interactivity route decides nothing itself, so a click that does not carry
 * Slack's v0 signature over the exact bytes (none, the wrong secret, a replayed old timestamp, a body
 * changed after signing) is a bare 401, nothing is queued, and the approval stays undecided.
 */
describe("security: forged Slack approval clicks", () => {
  let proc: RunningProcess;
  const prefix = uniquePrefix();
  beforeAll(async () => {
    proc = await startTestProcess("web", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, SLACK_SIGNING_SECRET: SLACK_SECRET, SLACK_BOT_TOKEN: "xoxb-x" });
  });
  afterAll(async () => proc?.stop());

  it("unsigned, wrong-secret, stale and tampered clicks are 401 and queue nothing", async () => {
    const job = AgentJob.parse({
      installationId: 1,
      owner: "octo",
      repo: "hello",
      source: { kind: "slack", ref: { team: "T0TEAM", channel: "C0ENG", ts: "1764591000.000100", threadTs: "1764591000.000100" }, threadKey: "slack:T0TEAM:C0ENG:1764591000.000100" },
      threadId: "00000000-0000-4000-8000-000000000000",
      trigger: "comment",
      requester: { login: "dana", id: 41 },
      text: "x",
      deliveryId: "d",
    });
    const store = new ApprovalStore(testRedis(), prefix, 60_000);
    await store.create({ id: "f0f0f0f0", threadId: job.threadId, job, calls: [{ name: "execute", preview: "x" }], requestedAt: Date.now() });
    const body = clickBody({ user: "U0MAL", id: "f0f0f0f0" });
    const now = String(Math.floor(Date.now() / 1000));
    const stale = String(Math.floor(Date.now() / 1000) - 600);
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const attempts: [string, Record<string, string>, string][] = [
      ["unsigned", form, body],
      ["wrong secret", { ...form, "x-slack-request-timestamp": now, "x-slack-signature": slackSignature("guessed-secret", now, body) }, body],
      ["replayed old signature", { ...form, "x-slack-request-timestamp": stale, "x-slack-signature": slackSignature(SLACK_SECRET, stale, body) }, body],
      ["body changed after signing", { ...form, "x-slack-request-timestamp": now, "x-slack-signature": slackSignature(SLACK_SECRET, now, body) }, clickBody({ user: "U0ERIN", id: "f0f0f0f0" })],
    ];
    for (const [what, headers, sent] of attempts) {
      const res = await fetch(`http://127.0.0.1:${proc.port}/webhooks/slack/interactivity`, { method: "POST", headers, body: sent });
      expect({ what, status: res.status, body: await res.text() }).toEqual({ what, status: 401, body: "" });
    }
    expect(await proc.queues.queues["source-event"].count()).toBe(0);
    expect(await store.resolution("f0f0f0f0")).toBeNull();

    // The same click, signed: accepted and queued (so the refusals above are the signature's doing).
    const ok = await fetch(`http://127.0.0.1:${proc.port}/webhooks/slack/interactivity`, {
      method: "POST",
      headers: { ...form, "x-slack-request-timestamp": now, "x-slack-signature": slackSignature(SLACK_SECRET, now, body) },
      body,
    });
    expect(ok.status).toBe(200);
    expect(await proc.queues.queues["source-event"].count()).toBe(1);
  });
});
