import nock from "nock";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../../src/logger.js";
import { slackClient } from "../../../src/sources/slack/slack-client.js";
import { SLACK } from "./slack-fixture.js";
import { slackBody } from "../../contracts/slack-contract.js";

type Form = Record<string, string>;
const ref = { team: "T1", channel: "C1", ts: "20.000200", threadTs: "10.000100", botUserId: "UBOT" };
const client = () => slackClient("xoxb-test", createLogger("silent"));
const tool = (name: string) =>
  client()
    .tools(ref)
    .find((t) => t.name === name)!;
const bearer = { reqheaders: { authorization: "Bearer xoxb-test" } };

describe("Slack tools (nock'd Web API)", () => {
  it("slack_thread_reply posts mrkdwn into the thread, mentions converted", async () => {
    const post = nock(SLACK, bearer)
      .post("/api/chat.postMessage", (b: Form) => b.channel === "C1" && b.thread_ts === "10.000100" && b.text === "*Done*, <@U0DANA>: <https://github.com/o/r/pull/1|PR>")
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: "30.1" }));
    expect(await tool("slack_thread_reply").invoke({ text: "**Done**, @Dana(U0DANA): [PR](https://github.com/o/r/pull/1)" })).toBe("Posted in the Slack thread.");
    expect(post.isDone()).toBe(true);
  });

  it("slack_add_reaction reacts to the request; an existing reaction or an unknown emoji is an answer, not a failure", async () => {
    nock(SLACK)
      .post("/api/reactions.add", (b: Form) => b.channel === "C1" && b.timestamp === "20.000200" && b.name === "white_check_mark")
      .reply(200, slackBody("reactions.add", { ok: true }));
    nock(SLACK)
      .post("/api/reactions.add")
      .reply(200, slackBody("reactions.add", { ok: false, error: "already_reacted" }));
    nock(SLACK)
      .post("/api/reactions.add")
      .reply(200, slackBody("reactions.add", { ok: false, error: "invalid_name" }));
    const react = tool("slack_add_reaction");
    expect(await react.invoke({ name: "white_check_mark" })).toBe("Reacted with :white_check_mark:.");
    expect(await react.invoke({ name: "white_check_mark" })).toMatch(/already there/);
    expect(await react.invoke({ name: "nosuch" })).toMatch(/no emoji called "nosuch"/);
    await expect(react.invoke({ name: ":bad name:" })).rejects.toThrow();
  });

  it("slack_read_thread_messages reads every page and returns the newest, oldest first", async () => {
    nock(SLACK)
      .post("/api/conversations.replies", (b: Form) => b.ts === "10.000100" && b.cursor === undefined)
      .reply(
        200,
        slackBody("conversations.replies", {
          ok: true,
          messages: [
            { ts: "10.000100", user: "U1", text: "start" },
            { ts: "11.0", user: "U2", text: "two" },
          ],
          has_more: true,
          response_metadata: { next_cursor: "c2" },
        }),
      );
    nock(SLACK)
      .post("/api/conversations.replies", (b: Form) => b.cursor === "c2")
      .reply(200, slackBody("conversations.replies", { ok: true, messages: [{ ts: "12.0", bot_id: "B1", text: "three" }], has_more: false }));
    expect(await tool("slack_read_thread_messages").invoke({ limit: 2 })).toBe("[11.0] <@U2>: two\n[12.0] <@B1>: three");
  });
});

describe("Slack client (nock'd Web API)", () => {
  it("fetchMessage re-reads the message and the thread since the previous mention; gone or a bot's → null", async () => {
    nock(SLACK)
      .post("/api/conversations.replies", (b: Form) => b.oldest === "20.000200" && b.latest === "20.000200" && b.inclusive === "true")
      .reply(200, slackBody("conversations.replies", { ok: true, messages: [{ ts: "20.000200", user: "U9", text: "<@UBOT> do the thing" }] }));
    nock(SLACK)
      .post("/api/conversations.replies", (b: Form) => b.oldest === undefined && b.latest === "20.000200")
      .reply(
        200,
        slackBody("conversations.replies", {
          ok: true,
          messages: [
            { ts: "10.000100", user: "U1", text: "<@UBOT> earlier ask" },
            { ts: "15.0", user: "U2", text: "context line" },
            { ts: "20.000200", user: "U9", text: "<@UBOT> do the thing" },
          ],
        }),
      );
    expect(await client().fetchMessage(ref)).toEqual({ text: "do the thing", user: { id: "U9" }, context: "<@U2>: context line" });

    nock(SLACK)
      .post("/api/conversations.replies")
      .reply(200, slackBody("conversations.replies", { ok: true, messages: [] }));
    expect(await client().fetchMessage(ref)).toBeNull();
    nock(SLACK)
      .post("/api/conversations.replies")
      .reply(200, slackBody("conversations.replies", { ok: false, error: "thread_not_found" }));
    expect(await client().fetchMessage(ref)).toBeNull();
    nock(SLACK)
      .post("/api/conversations.replies")
      .reply(200, slackBody("conversations.replies", { ok: true, messages: [{ ts: "20.000200", bot_id: "B2", user: "U9", text: "x" }] }));
    expect(await client().fetchMessage(ref)).toBeNull();
    await expect(client().fetchMessage({ channel: "C1" })).rejects.toThrow();
  });

  it("acknowledge puts 👀 on the request (already there is fine); status is sent when it changes, and no more where Slack has none", async () => {
    nock(SLACK)
      .post("/api/reactions.add", (b: Form) => b.name === "eyes" && b.timestamp === "20.000200")
      .reply(200, slackBody("reactions.add", { ok: true }));
    nock(SLACK)
      .post("/api/reactions.add")
      .reply(200, slackBody("reactions.add", { ok: false, error: "already_reacted" }));
    const c = client();
    await c.acknowledge(ref);
    await c.acknowledge(ref);

    const thinking = nock(SLACK)
      .post("/api/assistant.threads.setStatus", (b: Form) => b.channel_id === "C1" && b.thread_ts === "10.000100" && b.status === "is thinking…")
      .reply(200, slackBody("assistant.threads.setStatus", { ok: true }));
    const tool = nock(SLACK)
      .post("/api/assistant.threads.setStatus", (b: Form) => b.status === "is working (execute)…")
      .reply(200, slackBody("assistant.threads.setStatus", { ok: true }));
    await c.status!(ref, { kind: "thinking" });
    await c.status!(ref, { kind: "thinking" });
    await c.status!(ref, { kind: "tool", name: "execute" });
    expect(thinking.isDone() && tool.isDone()).toBe(true);

    const other = client();
    nock(SLACK)
      .post("/api/assistant.threads.setStatus")
      .reply(200, slackBody("assistant.threads.setStatus", { ok: false, error: "not_allowed" }));
    await other.status!(ref, { kind: "thinking" });
    // No mock left: a second call would fail the test with a refused connection.
    await other.status!(ref, { kind: "done" });
  });
});
