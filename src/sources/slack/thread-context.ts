import type { SlackApiMessage } from "./schema.js";

export const CONTEXT_MAX_MESSAGES = 500;
export const CONTEXT_MAX_CHARS = 20_000;

/** One line per message, as the agent reads them: `<@U0123>: text`. */
export function formatSlackMessage(m: Pick<SlackApiMessage, "user" | "bot_id" | "text">): string {
  return `<@${m.user ?? m.bot_id ?? "unknown"}>: ${m.text}`;
}

/**
 * The thread's messages since the previous one that mentioned us (or since the thread began), before
 * `beforeTs`: the newest 500 at most, then trimmed from the oldest to fit `maxChars` (pure).
 */
export function threadContext(messages: SlackApiMessage[], beforeTs: string, botUserId: string | undefined, maxChars = CONTEXT_MAX_CHARS): string | undefined {
  const earlier = messages.filter((m) => Number(m.ts) < Number(beforeTs)).sort((a, b) => Number(a.ts) - Number(b.ts));
  const lastMention = botUserId ? earlier.findLastIndex((m) => m.text.includes(`<@${botUserId}>`)) : -1;
  const since = earlier.slice(lastMention + 1).slice(-CONTEXT_MAX_MESSAGES);
  const lines: string[] = [];
  let size = 0;
  for (const m of since.reverse()) {
    const l = formatSlackMessage(m);
    if (size + l.length + 1 > maxChars) {
      lines.push("(earlier messages left out)");
      break;
    }
    lines.push(l);
    size += l.length + 1;
  }
  return lines.length > 0 ? lines.reverse().join("\n") : undefined;
}
