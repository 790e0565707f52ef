import type { Logger } from "pino";
import type { RunStatus, SourceClient } from "../source.js";
import { isPostedReply } from "../../shared/is-posted-reply.js";
import { markdownToMrkdwn } from "./mrkdwn.js";
import { approvalBlocks } from "./approval-blocks.js";
import { SlackRef } from "./schema.js";
import { isSlackError, oneMessage, slackWebClient, threadMessages } from "./slack-api.js";
import { slackTools } from "./slack-tools.js";
import { threadContext } from "./thread-context.js";

const STATUS_TEXT = (s: RunStatus): string => (s.kind === "thinking" ? "is thinking…" : s.kind === "tool" ? `is working (${s.name})…` : "");

/** The worker's Slack half: re-reads with our bot token, 👀 at once, status while working, replies in the thread. */
export function slackClient(token: string, log: Logger, apiUrl?: string): SourceClient {
  const client = slackWebClient(token, log, apiUrl);
  const lastStatus = new Map<string, string>();
  let statusUnavailable = false;
  return {
    async fetchMessage(raw) {
      const ref = SlackRef.parse(raw);
      let message;
      try {
        message = await oneMessage(client, ref.channel, ref.threadTs, ref.ts);
      } catch (err) {
        if (isSlackError(err, "thread_not_found", "message_not_found", "channel_not_found")) return null;
        throw err;
      }
      if (!message || !message.user || message.bot_id) return null;
      const mention = ref.botUserId ? new RegExp(`<@${ref.botUserId}>\\s*`, "g") : null;
      const text = mention ? message.text.replace(mention, "").trim() : message.text;
      const context = ref.threadTs !== ref.ts ? threadContext(await threadMessages(client, ref.channel, ref.threadTs, ref.ts), ref.ts, ref.botUserId) : undefined;
      const attachments = (message.files ?? []).flatMap((f) => (f.url_private ? [{ url: f.url_private, ...(f.mimetype ? { mediaType: f.mimetype } : {}) }] : []));
      return { text, user: { id: message.user }, ...(context ? { context } : {}), ...(attachments.length > 0 ? { attachments } : {}) };
    },
    async acknowledge(raw) {
      const ref = SlackRef.parse(raw);
      try {
        await client.reactions.add({ channel: ref.channel, timestamp: ref.ts, name: "eyes" });
      } catch (err) {
        if (!isSlackError(err, "already_reacted")) throw err;
      }
    },
    async status(raw, status) {
      if (statusUnavailable) return;
      const ref = SlackRef.parse(raw);
      const text = STATUS_TEXT(status);
      const key = `${ref.channel}:${ref.threadTs}`;
      if (lastStatus.get(key) === text) return;
      lastStatus.set(key, text);
      try {
        await client.assistant.threads.setStatus({ channel_id: ref.channel, thread_ts: ref.threadTs, status: text });
      } catch (err) {
        // Only assistant threads have a status; elsewhere Slack says no, and we stop asking.
        if (isSlackError(err, "not_allowed", "method_not_supported_for_channel_type", "missing_scope", "invalid_thread", "channel_not_found", "not_an_assistant_thread")) {
          statusUnavailable = true;
          log.info({ err: String(err) }, "slack assistant status unavailable in this conversation");
          return;
        }
        throw err;
      }
    },
    async reply(raw, markdown) {
      const ref = SlackRef.parse(raw);
      await client.chat.postMessage({ channel: ref.channel, thread_ts: ref.threadTs, text: markdownToMrkdwn(markdown), unfurl_links: false });
    },
    // `conversations.replies` from `oldest` (first page, 200): our bot user's message with the text we send.
    async postedReply(raw, markdown, since) {
      const ref = SlackRef.parse(raw);
      const sinceMs = Date.parse(since);
      const me = ref.botUserId ?? (await client.auth.test()).user_id ?? "";
      const res = await client.conversations.replies({ channel: ref.channel, ts: ref.threadTs, oldest: (sinceMs / 1000).toFixed(6), inclusive: true, limit: 200 });
      const want = { author: me, text: markdownToMrkdwn(markdown), sinceMs };
      return (res.messages ?? []).some((m) => isPostedReply({ author: m.user, text: m.text, createdAtMs: Number(m.ts) * 1000 }, want));
    },
    async approvalRequest(raw, markdown, approvalId) {
      const ref = SlackRef.parse(raw);
      const text = markdownToMrkdwn(markdown);
      await client.chat.postMessage({ channel: ref.channel, thread_ts: ref.threadTs, text, blocks: approvalBlocks(text, approvalId), unfurl_links: false });
    },
    async approvalDecided(raw, markdown) {
      const ref = SlackRef.parse(raw);
      const text = markdownToMrkdwn(markdown);
      await client.chat.update({ channel: ref.channel, ts: ref.ts, text, blocks: [{ type: "section", text: { type: "mrkdwn", text: text.slice(0, 3000) } }] });
    },
    async verifiedEmail(user) {
      try {
        const res = await client.users.info({ user: user.id });
        const email = res.user?.profile?.email;
        return res.user?.is_email_confirmed === true && !res.user.is_bot && email ? email : null;
      } catch (err) {
        // Without users:read.email (or for a user we cannot see) there is no email to match.
        if (isSlackError(err, "missing_scope", "user_not_found", "user_not_visible")) return null;
        throw err;
      }
    },
    tools(raw) {
      return slackTools(client, SlackRef.parse(raw));
    },
  };
}
