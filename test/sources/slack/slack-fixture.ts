import type { AppMentionEvent } from "@slack/types";
import nock from "nock";
import { slackSignature } from "../../../src/sources/slack/signature.js";
import { markdownToMrkdwn } from "../../../src/sources/slack/mrkdwn.js";
import type { Mention, SourceFixture } from "../conformance.js";
import { slackBody } from "../../contracts/slack-contract.js";

export const SLACK_SECRET = "slack-test-signing-secret";
export const SLACK = "https://slack.com";
const TEAM = "T0TEAM";
const BOT = "UBOT";

/** Slack's body parser: nock hands form bodies over parsed. */
type Form = Record<string, string>;

export function slackEventBody(m: Mention, eventId = `Ev${m.id.replace(/\D/g, "")}`): string {
  return JSON.stringify({
    token: "legacy-ignored",
    team_id: TEAM,
    api_app_id: "A0APP",
    type: "event_callback",
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: TEAM, user_id: BOT, is_bot: true }],
    // The envelope has no published type (Slack's Events API docs: `event_callback`); the event has @slack/types'.
    event: { type: "app_mention", user: m.user, text: `<@${BOT}> ${m.text}`, ts: m.id, ...(m.thread ? { thread_ts: m.thread } : {}), channel: m.where, event_ts: m.id } satisfies AppMentionEvent,
  });
}

export function signSlack(body: string, at: Date, secret = SLACK_SECRET): Record<string, string> {
  const ts = String(Math.floor(at.getTime() / 1000));
  return { "content-type": "application/json", "x-slack-request-timestamp": ts, "x-slack-signature": slackSignature(secret, ts, body) };
}

const threadOf = (m: Mention) => m.thread ?? m.id;

export const slackFixture: SourceFixture = {
  name: "slack",
  env: { SLACK_SIGNING_SECRET: SLACK_SECRET, SLACK_BOT_TOKEN: "xoxb-test-token" },
  windowSeconds: 300,
  deliver(m, { at, redelivery }) {
    const body = slackEventBody(m);
    return { path: "/webhooks/slack", body, headers: { ...signSlack(body, at), ...(redelivery ? { "x-slack-retry-num": String(redelivery), "x-slack-retry-reason": "http_timeout" } : {}) } };
  },
  expected: (m) => ({ dedupeKey: `${TEAM}:${m.where}:${m.id}`, threadKey: `slack:${TEAM}:${m.where}:${threadOf(m)}`, repoDefaultKey: `slack:${m.where}` }),
  ref: (m) => ({ team: TEAM, channel: m.where, ts: m.id, threadTs: threadOf(m), botUserId: BOT }),
  nockFetch(m, truth) {
    const scopes = [
      nock(SLACK)
        .post("/api/conversations.replies", (b: Form) => b.channel === m.where && b.ts === threadOf(m) && b.oldest === m.id && b.latest === m.id)
        .reply(200, slackBody("conversations.replies", { ok: true, messages: [{ type: "message", ts: m.id, user: truth.user, text: `<@${BOT}> ${truth.text}` }], has_more: false })),
    ];
    if (m.thread && m.thread !== m.id) {
      scopes.push(
        nock(SLACK)
          .post("/api/conversations.replies", (b: Form) => b.channel === m.where && b.ts === m.thread && b.oldest === undefined && b.latest === m.id)
          .reply(200, slackBody("conversations.replies", { ok: true, messages: [{ type: "message", ts: m.thread, user: "UOTHER", text: "the thread starts here" }], has_more: false })),
      );
    }
    return scopes;
  },
  nockAck: (m) =>
    nock(SLACK)
      .post("/api/reactions.add", (b: Form) => b.channel === m.where && b.timestamp === m.id && b.name === "eyes")
      .reply(200, slackBody("reactions.add", { ok: true })),
  nockReply: (m, match) =>
    nock(SLACK)
      .post("/api/chat.postMessage", (b: Form) => b.channel === m.where && b.thread_ts === threadOf(m) && match(b.text ?? ""))
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: "9999.0001" })),
  // `conversations.replies` from `oldest`: the thread's parent, then what was said since (Slack stores the mrkdwn we send).
  nockListing: (m, listed) => [
    nock(SLACK)
      .post("/api/conversations.replies", (b: Form) => b.channel === m.where && b.ts === threadOf(m) && b.oldest !== undefined && b.oldest !== m.id && b.latest === undefined)
      .reply(
        200,
        slackBody("conversations.replies", {
          ok: true,
          has_more: false,
          messages: [
            { type: "message", ts: threadOf(m), user: "UOTHER", text: "the thread starts here" },
            ...listed.map((l, i) => ({
              type: "message",
              ts: `${Math.floor(l.at.getTime() / 1000)}.${String(i).padStart(6, "0")}`,
              text: markdownToMrkdwn(l.markdown),
              ...(l.own ? { user: BOT, bot_id: "B0BOT" } : { user: "UWRITER" }),
            })),
          ],
        }),
      ),
  ],
  nockEmail: (userId, email) =>
    nock(SLACK)
      .post("/api/users.info", (b: Form) => b.user === userId)
      .reply(200, slackBody("users.info", { ok: true, user: { id: userId, is_bot: false, is_email_confirmed: email !== null, profile: { email: email ?? "unconfirmed@example.com" } } })),
  replyFormatting: [
    ["**Done**: see [the PR](https://github.com/octo/hello/pull/7), thanks @Dana(U0DANA)", "*Done*: see <https://github.com/octo/hello/pull/7|the PR>, thanks <@U0DANA>"],
    ["# Summary\n- fixed `a < b`\n- _tested_", "*Summary*\n• fixed `a &lt; b`\n• _tested_"],
  ],
};
