import { z } from "zod";

/** Where the worker answers in Slack: the channel, the triggering message and its thread. */
const SlackId = z.string().regex(/^[A-Z0-9]{1,40}$/, "a Slack id");
const SlackTs = z.string().regex(/^\d{1,12}\.\d{1,8}$/, "a Slack message ts");

export const SlackRef = z.object({
  team: SlackId,
  channel: SlackId,
  /** The message that asked. */
  ts: SlackTs,
  /** The thread it belongs to (its own ts for a top-level message). */
  threadTs: SlackTs,
  /** Our bot user in that workspace, so "since the previous mention" can be found (and stripped from the text). */
  botUserId: SlackId.optional(),
});
export type SlackRef = z.infer<typeof SlackRef>;

export const SlackEvent = z.object({
  type: z.enum(["app_mention", "message"]),
  subtype: z.string().optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().default(""),
  ts: SlackTs,
  thread_ts: SlackTs.optional(),
  channel: SlackId,
  channel_type: z.string().optional(),
});

export const SlackEnvelope = z.discriminatedUnion("type", [
  z.object({ type: z.literal("url_verification"), challenge: z.string().max(1000) }),
  z.object({
    type: z.literal("event_callback"),
    team_id: SlackId,
    event_id: z.string().min(1),
    event: z.looseObject({ type: z.string() }),
    authorizations: z.array(z.looseObject({ user_id: z.string().optional() })).optional(),
  }),
]);

/** A message as `conversations.replies` returns it. */
export const SlackApiMessage = z.looseObject({
  ts: z.string(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  subtype: z.string().optional(),
  text: z.string().default(""),
  files: z.array(z.looseObject({ url_private: z.string().optional(), mimetype: z.string().optional() })).optional(),
});
export type SlackApiMessage = z.infer<typeof SlackApiMessage>;

/** Our Approve / Deny buttons' action ids; the value is the approval id. */
export const APPROVAL_ACTIONS = { approve: "open_swe_approval_approve", deny: "open_swe_approval_deny" } as const;

/** An interactivity `block_actions` payload (a button click on one of our messages). */
export const SlackBlockActions = z.object({
  type: z.literal("block_actions"),
  team: z.looseObject({ id: SlackId }),
  user: z.looseObject({ id: SlackId }),
  channel: z.looseObject({ id: SlackId }),
  message: z.looseObject({ ts: SlackTs, thread_ts: SlackTs.optional() }),
  actions: z.array(z.looseObject({ action_id: z.string(), value: z.string().optional(), action_ts: z.string().regex(/^\d{1,12}\.\d{1,8}$/) })).min(1),
});
export type SlackBlockActions = z.infer<typeof SlackBlockActions>;
