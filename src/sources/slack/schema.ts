import { z } from "zod";

/** Where the worker answers in Slack: the channel, the triggering message and its thread. */
export const SlackRef = z.object({
  team: z.string().min(1),
  channel: z.string().min(1),
  /** The message that asked. */
  ts: z.string().min(1),
  /** The thread it belongs to (its own ts for a top-level message). */
  threadTs: z.string().min(1),
  /** Our bot user in that workspace, so "since the previous mention" can be found. */
  botUserId: z.string().min(1).optional(),
});
export type SlackRef = z.infer<typeof SlackRef>;

const SlackMessageEvent = z.object({
  type: z.enum(["app_mention", "message"]),
  subtype: z.string().optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().default(""),
  ts: z.string().min(1),
  thread_ts: z.string().optional(),
  channel: z.string().min(1),
  channel_type: z.string().optional(),
});
export type SlackMessageEvent = z.infer<typeof SlackMessageEvent>;

export const SlackEnvelope = z.discriminatedUnion("type", [
  z.object({ type: z.literal("url_verification"), challenge: z.string().max(1000) }),
  z.object({
    type: z.literal("event_callback"),
    team_id: z.string().min(1),
    event_id: z.string().min(1),
    event: z.looseObject({ type: z.string() }),
    authorizations: z.array(z.looseObject({ user_id: z.string().optional() })).optional(),
  }),
]);

export const SlackEvent = SlackMessageEvent;

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
