import type { SourceEvent } from "../source.js";
import { ApprovalId } from "../../queue/schemas.js";
import { APPROVAL_ACTIONS, SlackBlockActions, SlackEnvelope, SlackEvent, type SlackRef } from "./schema.js";

/** Subtypes that are still a person writing to us; every other subtype (edits, joins, bots) is ignored. */
const PERSON_SUBTYPES = new Set(["file_share", "thread_broadcast"]);

/** The Slack thread key the thread id derives from: `slack:<team>:<channel>:<thread_ts or ts>`. */
export function slackThreadKey(team: string, channel: string, threadTs: string): string {
  return `slack:${team}:${channel}:${threadTs}`;
}

/**
 * What a verified Events API body asks for (pure). `app_mention`s, DMs, and channel messages that
 * mention us are requests; the same message arriving as both an `app_mention` and a `message` event,
 * or as a retry, has one dedupe key (the message itself), so it runs once.
 */
export function parseSlackEvent(raw: Buffer): SourceEvent {
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch {
    return { kind: "ignore", reason: "body is not JSON" };
  }
  const envelope = SlackEnvelope.safeParse(json);
  if (!envelope.success) return { kind: "ignore", reason: "not an Events API envelope we act on" };
  if (envelope.data.type === "url_verification") return { kind: "respond", status: 200, body: { challenge: envelope.data.challenge } };
  const { team_id: team, authorizations } = envelope.data;
  const parsed = SlackEvent.safeParse(envelope.data.event);
  if (!parsed.success) return { kind: "ignore", reason: `event ${envelope.data.event.type} is not one we act on` };
  const event = parsed.data;
  const authorized = authorizations?.find((a) => a.user_id)?.user_id;
  const botUserId = authorized && /^[A-Z0-9]{1,40}$/.test(authorized) ? authorized : undefined;
  if (event.subtype && !PERSON_SUBTYPES.has(event.subtype)) return { kind: "ignore", reason: `message subtype ${event.subtype}` };
  if (event.bot_id || !event.user || event.user === botUserId) return { kind: "ignore", reason: "a bot's (or our own) message" };
  const mentioned = event.type === "app_mention" || event.channel_type === "im" || (botUserId !== undefined && event.text.includes(`<@${botUserId}>`));
  if (!mentioned) return { kind: "ignore", reason: "message does not address the app", unaddressed: true };
  const threadTs = event.thread_ts ?? event.ts;
  const ref: SlackRef = { team, channel: event.channel, ts: event.ts, threadTs, ...(botUserId ? { botUserId } : {}) };
  return {
    kind: "mention",
    dedupeKey: `${team}:${event.channel}:${event.ts}`,
    threadKey: slackThreadKey(team, event.channel, threadTs),
    text: event.text,
    user: { id: event.user },
    ref,
    repoDefaultKey: `slack:${event.channel}`,
  };
}

/**
 * A verified interactivity payload (pure): a click on our Approve / Deny buttons becomes a queued decision
 * (one per click: a second click is told the approval was already decided); anything else is acknowledged.
 */
export function parseSlackInteractivity(raw: Buffer): SourceEvent {
  const payload = new URLSearchParams(raw.toString("utf8")).get("payload");
  if (payload === null) return { kind: "ignore", reason: "no interactivity payload" };
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    return { kind: "ignore", reason: "interactivity payload is not JSON" };
  }
  const parsed = SlackBlockActions.safeParse(json);
  if (!parsed.success) {
    const type = (json as { type?: unknown } | null)?.type;
    return { kind: "ignore", reason: `interactivity ${typeof type === "string" ? type.slice(0, 40) : "payload"} is not one we act on` };
  }
  const p = parsed.data;
  const action = p.actions[0]!;
  const decision = action.action_id === APPROVAL_ACTIONS.approve ? "approve" : action.action_id === APPROVAL_ACTIONS.deny ? "deny" : null;
  const approvalId = ApprovalId.safeParse(action.value);
  if (!decision || !approvalId.success) return { kind: "ignore", reason: `action ${action.action_id.slice(0, 40)} is not one we act on` };
  const threadTs = p.message.thread_ts ?? p.message.ts;
  // `ts` is the request message itself: the decision rewrites it; replies go to its thread.
  const ref: SlackRef = { team: p.team.id, channel: p.channel.id, ts: p.message.ts, threadTs };
  return {
    kind: "mention",
    dedupeKey: `action:${p.team.id}:${p.channel.id}:${p.message.ts}:${p.user.id}:${action.action_ts}`,
    threadKey: slackThreadKey(p.team.id, p.channel.id, threadTs),
    text: "",
    user: { id: p.user.id },
    ref,
    action: { kind: "approval", approvalId: approvalId.data, decision },
  };
}
