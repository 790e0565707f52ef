import type { Env } from "../../config/env.js";

/** What the Linear source reads from the environment (`readConfig` already validated it). */
export interface LinearSettings {
  /** null: every request to the route is refused. */
  webhookSecret: string | null;
  /** A personal API key or an OAuth access token; null: the worker cannot answer on Linear. */
  credential: { apiKey: string } | { accessToken: string } | null;
  /** The Linear user the app acts as (own comments, assignment, delegation). */
  appUserId: string | null;
  /** Lower-cased label name that starts a run when added to an issue. */
  triggerLabel: string;
  mentionHandles: string[];
}

export function linearSettings(env: Env): LinearSettings {
  return {
    webhookSecret: env.LINEAR_WEBHOOK_SECRET ?? null,
    credential: env.LINEAR_ACCESS_TOKEN ? { accessToken: env.LINEAR_ACCESS_TOKEN } : env.LINEAR_API_KEY ? { apiKey: env.LINEAR_API_KEY } : null,
    appUserId: env.LINEAR_APP_USER_ID ?? null,
    triggerLabel: (env.LINEAR_TRIGGER_LABEL ?? env.TRIGGER_LABEL).toLowerCase(),
    mentionHandles: env.LINEAR_MENTION_HANDLES?.length ? env.LINEAR_MENTION_HANDLES : env.MENTION_HANDLES,
  };
}
