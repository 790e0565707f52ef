import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { slackSignature } from "../../src/sources/slack/signature.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";
import { SLACK_SECRET, signSlack, slackEventBody } from "../sources/slack/slack-fixture.js";

const mention = { id: "1764591000.000100", user: "U0EVE", text: "push to main repo:octo/hello", where: "C0ENG" };

/** A raw request over a real socket, headers exactly as given (duplicates included). */
function raw(port: number, path: string, headers: [string, string][], body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const grouped = new Map<string, string[]>();
    for (const [k, v] of headers) grouped.set(k, [...(grouped.get(k) ?? []), v]);
    const req = request({ host: "127.0.0.1", port, path, method: "POST", headers: { "content-length": String(Buffer.byteLength(body)) } }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    // An array value is sent as that many header lines: how a duplicate header reaches the server.
    for (const [k, v] of grouped) req.setHeader(k, v.length === 1 ? v[0]! : v);
    req.on("error", reject);
    req.end(body);
  });
}

describe("attacks on the source webhooks (Slack routes, real sockets)", () => {
  let configured: RunningProcess;
  let unset: RunningProcess;
  const queued = async (p: RunningProcess) => (await p.queues.queues["source-event"].getJobs(["waiting", "active", "completed", "failed", "delayed"])).length;

  beforeAll(async () => {
    configured = await startTestProcess("web", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: uniquePrefix(), SLACK_SIGNING_SECRET: SLACK_SECRET, SLACK_BOT_TOKEN: "xoxb-x" });
    unset = await startTestProcess("web", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: uniquePrefix() });
  });
  afterAll(async () => {
    await configured?.stop();
    await unset?.stop();
  });

  it("an unset secret never accepts, not even a request signed with the empty secret", async () => {
    const body = slackEventBody(mention);
    const ts = String(Math.floor(Date.now() / 1000));
    for (const secret of ["", "undefined", SLACK_SECRET]) {
      const res = await raw(
        unset.port!,
        "/webhooks/slack",
        [
          ["content-type", "application/json"],
          ["x-slack-request-timestamp", ts],
          ["x-slack-signature", slackSignature(secret, ts, body)],
        ],
        body,
      );
      expect(res).toEqual({ status: 401, body: "" });
    }
    // Not even Slack's url_verification challenge is echoed: that would let anyone register the URL.
    const challenge = JSON.stringify({ type: "url_verification", challenge: "steal-me" });
    expect((await raw(unset.port!, "/webhooks/slack", Object.entries(signSlack(challenge, new Date(), "")), challenge)).status).toBe(401);
    expect(await queued(unset)).toBe(0);
  });

  it("a signature over the parsed-and-re-serialised body does not verify the bytes actually sent", async () => {
    const body = slackEventBody(mention);
    const pretty = JSON.stringify(JSON.parse(body), null, 2);
    const res = await raw(configured.port!, "/webhooks/slack", Object.entries(signSlack(body, new Date())), pretty);
    expect(res.status).toBe(401);
    expect(await queued(configured)).toBe(0);
  });

  it("ambiguous (duplicate) signature headers are refused, never resolved by picking one", async () => {
    const body = slackEventBody(mention);
    const good = signSlack(body, new Date());
    const res = await raw(
      configured.port!,
      "/webhooks/slack",
      [
        ["content-type", "application/json"],
        ["x-slack-request-timestamp", good["x-slack-request-timestamp"]!],
        ["x-slack-signature", "v0=deadbeef"],
        ["x-slack-signature", good["x-slack-signature"]!],
      ],
      body,
    );
    expect(res.status).toBe(401);
    expect(await queued(configured)).toBe(0);
  });

  it("the route's other spellings (query, trailing slash, dot segments) are verified too, never bypassed", async () => {
    const body = slackEventBody(mention);
    const forged = Object.entries({ ...signSlack(body, new Date()), "x-slack-signature": "v0=" + "0".repeat(64) });
    for (const path of ["/webhooks/slack?x=1", "/webhooks/slack/", "/webhooks/./slack", "/webhooks/x/../slack", "/webhooks/slack/interactivity?y"]) {
      expect((await raw(configured.port!, path, forged, body)).status).toBe(401);
    }
    expect(await queued(configured)).toBe(0);
  });

  it("the app's own message (a loop) and a bot's are verified but never queued", async () => {
    for (const event of [{ ...mention, user: "UBOT" }]) {
      const body = slackEventBody(event);
      expect((await raw(configured.port!, "/webhooks/slack", Object.entries(signSlack(body, new Date())), body)).status).toBe(200);
    }
    const botBody = JSON.stringify({ ...JSON.parse(slackEventBody(mention)), event: { type: "app_mention", bot_id: "B1", user: "U0EVE", text: "<@UBOT> hi", ts: "1.1", channel: "C0ENG" } });
    expect((await raw(configured.port!, "/webhooks/slack", Object.entries(signSlack(botBody, new Date())), botBody)).status).toBe(200);
    expect(await queued(configured)).toBe(0);
  });

  it("signed url_verification is echoed and a signed interactivity payload gets 200; unsigned, both are 401", async () => {
    const challenge = JSON.stringify({ type: "url_verification", challenge: "c-42" });
    const ok = await raw(configured.port!, "/webhooks/slack", Object.entries(signSlack(challenge, new Date())), challenge);
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({ challenge: "c-42" });
    const form = `payload=${encodeURIComponent(JSON.stringify({ type: "block_actions", actions: [{ action_id: "approve" }] }))}`;
    const signed = { ...signSlack(form, new Date()), "content-type": "application/x-www-form-urlencoded" };
    expect((await raw(configured.port!, "/webhooks/slack/interactivity", Object.entries(signed), form)).status).toBe(200);
    expect((await raw(configured.port!, "/webhooks/slack/interactivity", [["content-type", "application/x-www-form-urlencoded"]], form)).status).toBe(401);
    expect((await raw(configured.port!, "/webhooks/slack", [["content-type", "application/json"]], challenge)).status).toBe(401);
    expect(await queued(configured)).toBe(0);
  });
});
