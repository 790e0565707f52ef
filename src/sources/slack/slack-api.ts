import { LogLevel, WebClient, WebAPIPlatformError, type Logger as SlackLogger } from "@slack/web-api";
import type { Logger } from "pino";
import { SlackApiMessage } from "./schema.js";

/** The Web API client, logging through our pino logger, with a short retry budget; `apiUrl`: SLACK_API_URL (GovSlack, a proxy). */
export function slackWebClient(token: string, log: Logger, apiUrl?: string): WebClient {
  const logger: SlackLogger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (...msg) => log.warn({ slack: msg.map(String).join(" ").slice(0, 500) }, "slack client warning"),
    error: (...msg) => log.error({ slack: msg.map(String).join(" ").slice(0, 500) }, "slack client error"),
    setLevel: () => undefined,
    getLevel: () => LogLevel.WARN,
    setName: () => undefined,
  };
  return new WebClient(token, {
    logger,
    retryConfig: { retries: 2, factor: 2, minTimeout: 500, maxTimeout: 4_000 },
    timeout: 15_000,
    ...(apiUrl ? { slackApiUrl: apiUrl.endsWith("/") ? apiUrl : `${apiUrl}/` } : {}),
  });
}

/** Slack answered with a platform error named `code` (`already_reacted`, `thread_not_found`, …). */
export function isSlackError(err: unknown, ...codes: string[]): boolean {
  return err instanceof WebAPIPlatformError && codes.includes(err.data.error);
}

const MAX_PAGES = 10;

/** The thread's messages up to `latest` (inclusive), oldest first, at most 10 pages of 200. */
export async function threadMessages(client: WebClient, channel: string, threadTs: string, latest?: string): Promise<SlackApiMessage[]> {
  const out: SlackApiMessage[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await client.conversations.replies({ channel, ts: threadTs, limit: 200, ...(latest ? { latest, inclusive: true } : {}), ...(cursor ? { cursor } : {}) });
    for (const m of res.messages ?? []) {
      const parsed = SlackApiMessage.safeParse(m);
      if (parsed.success) out.push(parsed.data);
    }
    cursor = res.response_metadata?.next_cursor || undefined;
    if (!res.has_more || !cursor) break;
  }
  return out;
}

/** Exactly one message, by its ts (a thread's parent or a reply), re-read with our token. */
export async function oneMessage(client: WebClient, channel: string, threadTs: string, ts: string): Promise<SlackApiMessage | null> {
  const res = await client.conversations.replies({ channel, ts: threadTs, latest: ts, oldest: ts, inclusive: true, limit: 1 });
  const found = (res.messages ?? []).find((m) => m.ts === ts);
  if (!found) return null;
  const parsed = SlackApiMessage.safeParse(found);
  return parsed.success ? parsed.data : null;
}
