import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { slackWebClient, threadMessages } from "../../src/sources/slack/slack-api.js";

/**
 * `npm run test:live` only: the bot token against a test workspace (SLACK_BOT_TOKEN) and a channel the
 * bot is in (OPEN_SWE_LIVE_SLACK_CHANNEL): one message posted, read back through the thread reader the
 * intake uses, then deleted.
 */
describe("live: Slack", () => {
  it("posts in the test channel, reads it back as the intake does, and deletes it", async () => {
    const client = slackWebClient(process.env.SLACK_BOT_TOKEN ?? "", createLogger("warn", "live"), process.env.SLACK_API_URL);
    const channel = process.env.OPEN_SWE_LIVE_SLACK_CHANNEL ?? "";
    const posted = await client.chat.postMessage({ channel, text: "open-swe live check (deleted at once)" });
    expect(posted.ok).toBe(true);
    try {
      const messages = await threadMessages(client, channel, posted.ts ?? "", posted.ts);
      expect(messages.map((m) => m.text)).toContain("open-swe live check (deleted at once)");
    } finally {
      await client.chat.delete({ channel, ts: posted.ts ?? "" });
    }
  });
});
