import { describe, expect, it } from "vitest";
import { parseSlackEvent, parseSlackInteractivity } from "../../../src/sources/slack/events.js";
import { CHANNEL, clickBody, REQUEST_TS, TEAM, THREAD } from "./slack-click.js";

const envelope = (event: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  Buffer.from(JSON.stringify({ type: "event_callback", team_id: "T1", event_id: "Ev1", authorizations: [{ user_id: "UBOT" }], event, ...extra }));
const mention = { type: "app_mention", user: "U1", text: "<@UBOT> fix it", ts: "10.1", channel: "C1" };

describe("parseSlackEvent", () => {
  it("answers url_verification with its challenge", () => {
    expect(parseSlackEvent(Buffer.from(JSON.stringify({ type: "url_verification", challenge: "c-123", token: "x" })))).toEqual({ kind: "respond", status: 200, body: { challenge: "c-123" } });
  });

  it("an app_mention is a request keyed on the message, in the thread of its own ts", () => {
    expect(parseSlackEvent(envelope(mention))).toEqual({
      kind: "mention",
      dedupeKey: "T1:C1:10.1",
      threadKey: "slack:T1:C1:10.1",
      text: "<@UBOT> fix it",
      user: { id: "U1" },
      ref: { team: "T1", channel: "C1", ts: "10.1", threadTs: "10.1", botUserId: "UBOT" },
      repoDefaultKey: "slack:C1",
    });
  });

  it("a thread reply lives in its parent's thread; its message event twin has the same dedupe key", () => {
    const reply = parseSlackEvent(envelope({ ...mention, ts: "12.5", thread_ts: "10.1" }));
    const twin = parseSlackEvent(envelope({ ...mention, type: "message", channel_type: "channel", ts: "12.5", thread_ts: "10.1" }, { event_id: "Ev2" }));
    expect(reply).toMatchObject({ kind: "mention", threadKey: "slack:T1:C1:10.1", dedupeKey: "T1:C1:12.5", ref: { ts: "12.5", threadTs: "10.1" } });
    expect(twin).toMatchObject({ kind: "mention", dedupeKey: "T1:C1:12.5" });
  });

  it("a DM needs no mention", () => {
    expect(parseSlackEvent(envelope({ type: "message", channel_type: "im", user: "U1", text: "hello", ts: "3.3", channel: "D1" }))).toMatchObject({ kind: "mention", threadKey: "slack:T1:D1:3.3" });
  });

  it.each([
    ["a channel message that does not mention us", { type: "message", channel_type: "channel", user: "U1", text: "lunch?", ts: "1.1", channel: "C1" }],
    ["our own message", { ...mention, user: "UBOT" }],
    ["a bot's message", { ...mention, bot_id: "B1" }],
    ["an edit", { ...mention, type: "message", subtype: "message_changed" }],
    ["a channel join", { ...mention, type: "message", subtype: "channel_join" }],
    ["a reaction", { type: "reaction_added", user: "U1", reaction: "eyes" }],
    ["an event without a user", { ...mention, user: undefined }],
  ])("ignores %s", (_name, event) => {
    expect(parseSlackEvent(envelope(event as Record<string, unknown>)).kind).toBe("ignore");
  });

  it("ids and timestamps that are not Slack's shapes are not acted on (they end up in API calls and patterns)", () => {
    expect(parseSlackEvent(envelope({ ...mention, channel: "C1/../x" })).kind).toBe("ignore");
    expect(parseSlackEvent(envelope({ ...mention, ts: "1.1.1" })).kind).toBe("ignore");
    expect(parseSlackEvent(envelope(mention, { team_id: "T1 x" })).kind).toBe("ignore");
    const odd = parseSlackEvent(envelope(mention, { authorizations: [{ user_id: ".*" }] }));
    expect(odd.kind === "mention" && odd.ref).not.toHaveProperty("botUserId");
  });

  it.each([
    ["not JSON", "{"],
    ["an array", "[]"],
    ["an unknown envelope", JSON.stringify({ type: "app_rate_limited" })],
  ])("ignores %s without throwing", (_n, body) => {
    expect(parseSlackEvent(Buffer.from(body)).kind).toBe("ignore");
  });

  it("interactivity payloads other than our buttons are acknowledged, never run", () => {
    expect(parseSlackInteractivity(Buffer.from(`payload=${encodeURIComponent(JSON.stringify({ type: "block_actions" }))}`))).toMatchObject({ kind: "ignore" });
    expect(parseSlackInteractivity(Buffer.from("payload=%7B"))).toMatchObject({ kind: "ignore" });
  });

  const withAction = (action: Record<string, unknown>) => {
    const p = JSON.parse(new URLSearchParams(clickBody({ user: "U0ERIN", id: "5eed5eed" })).get("payload")!) as { actions: Record<string, unknown>[] };
    p.actions[0] = { ...p.actions[0], ...action };
    return Buffer.from(new URLSearchParams({ payload: JSON.stringify(p) }).toString());
  };
  it.each([
    [
      "Approve",
      withAction({}),
      {
        kind: "mention",
        action: { kind: "approval", approvalId: "5eed5eed", decision: "approve" },
        user: { id: "U0ERIN" },
        ref: { team: TEAM, channel: CHANNEL, ts: REQUEST_TS, threadTs: THREAD },
        threadKey: `slack:${TEAM}:${CHANNEL}:${THREAD}`,
      },
    ],
    ["Deny", withAction({ action_id: "open_swe_approval_deny" }), { kind: "mention", action: { decision: "deny" } }],
    ["another app's button", withAction({ action_id: "vote_yes" }), { kind: "ignore" }],
    ["a value that is not an approval id", withAction({ value: "../../etc" }), { kind: "ignore" }],
    ["no value", withAction({ value: undefined }), { kind: "ignore" }],
  ])("a click on %s", (_n, body, expected) => {
    expect(parseSlackInteractivity(body)).toMatchObject(expected);
  });

  it("each click is its own event (a second click is answered, not deduplicated away)", () => {
    const a = parseSlackInteractivity(withAction({ action_ts: "1764591200.000001" }));
    const b = parseSlackInteractivity(withAction({ action_ts: "1764591200.000002" }));
    expect(a.kind === "mention" && b.kind === "mention" && a.dedupeKey !== b.dedupeKey).toBe(true);
  });
});
