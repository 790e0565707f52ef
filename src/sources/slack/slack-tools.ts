import { tool } from "@langchain/core/tools";
import type { WebClient } from "@slack/web-api";
import { z } from "zod";
import { markdownToMrkdwn } from "./mrkdwn.js";
import { isSlackError, threadMessages } from "./slack-api.js";
import type { SlackRef } from "./schema.js";
import { formatSlackMessage } from "./thread-context.js";

const READ_MAX_CHARS = 20_000;

/** The agent's Slack tools for one thread: reply there, react to the request, read the thread. */
export function slackTools(client: WebClient, ref: SlackRef) {
  return [
    tool(
      async ({ text }) => {
        await client.chat.postMessage({ channel: ref.channel, thread_ts: ref.threadTs, text: markdownToMrkdwn(text), unfurl_links: false });
        return "Posted in the Slack thread.";
      },
      {
        name: "slack_thread_reply",
        description: "Reply in the Slack thread this task came from. Markdown is converted to Slack's format; write @Name(U0123ABC) to mention someone.",
        schema: z.object({ text: z.string().min(1).max(30_000).describe("Markdown reply for the thread") }),
      },
    ),
    tool(
      async ({ name }) => {
        try {
          await client.reactions.add({ channel: ref.channel, timestamp: ref.ts, name });
        } catch (err) {
          if (isSlackError(err, "already_reacted")) return `:${name}: was already there.`;
          if (isSlackError(err, "invalid_name")) return `There is no emoji called "${name}".`;
          throw err;
        }
        return `Reacted with :${name}:.`;
      },
      {
        name: "slack_add_reaction",
        description: "Add an emoji reaction (name without colons, e.g. white_check_mark) to the message that asked.",
        schema: z.object({ name: z.string().regex(/^[a-z0-9_+'-]{1,64}$/, "an emoji name without colons") }),
      },
    ),
    tool(
      async ({ limit }) => {
        const messages = (await threadMessages(client, ref.channel, ref.threadTs)).slice(-limit);
        const lines: string[] = [];
        let size = 0;
        for (const m of [...messages].reverse()) {
          const l = `[${m.ts}] ${formatSlackMessage(m)}`;
          if (size + l.length > READ_MAX_CHARS) {
            lines.push("(older messages left out)");
            break;
          }
          lines.push(l);
          size += l.length + 1;
        }
        return lines.length > 0 ? lines.reverse().join("\n") : "The thread has no messages I can read.";
      },
      {
        name: "slack_read_thread_messages",
        description: "Read the newest messages of this Slack thread (what people said since, or before, the request).",
        schema: z.object({ limit: z.number().int().min(1).max(500).default(50) }),
      },
    ),
  ];
}
