import type { Mention, SourceFixture } from "../conformance.js";
import { APP_USER, commentEvent, SECRET, signLinear } from "./linear-fixtures.js";
import { mockLinear } from "./linear-nock.js";

/** A conformance mention on Linear: `where` is the team, `thread` the comment that began the thread (same issue). */
const issueOf = (m: Mention) => `issue-${(m.thread ?? m.id).replace(/\./g, "-")}`;
const commentOf = (id: string) => `comment-${id.replace(/\./g, "-")}`;
const parentOf = (m: Mention) => commentOf(m.thread ?? m.id);
const deliveryOf = (m: Mention) => `delivery-${m.id.replace(/\./g, "-")}`;

type Input = { input?: { commentId?: string; parentId?: string; body?: string } };

export const linearFixture: SourceFixture = {
  name: "linear",
  env: { LINEAR_WEBHOOK_SECRET: SECRET, LINEAR_API_KEY: "lin_api_test", LINEAR_APP_USER_ID: APP_USER },
  windowSeconds: 60,
  deliver(m, { at, redelivery }) {
    // The Linear-Delivery header is not signed: a redelivery under another one must still be the same event.
    const body = JSON.stringify(
      commentEvent(
        {
          id: commentOf(m.id),
          body: `@open-swe ${m.text}`,
          userId: m.user,
          user: { id: m.user, name: m.user, email: `${m.user.toLowerCase()}@example.com` },
          issueId: issueOf(m),
          issue: { id: issueOf(m), identifier: "ENG-1", title: "t", teamId: m.where, url: "https://linear.app/acme/issue/ENG-1" },
          ...(m.thread ? { parentId: commentOf(m.thread) } : {}),
        },
        { actor: { id: m.user, name: m.user, type: "user" }, webhookTimestamp: at.getTime() },
      ),
    );
    return {
      path: "/webhooks/linear",
      body,
      headers: {
        "content-type": "application/json; charset=utf-8",
        "linear-signature": signLinear(body),
        "linear-delivery": `${deliveryOf(m)}${redelivery ? `-again-${redelivery}` : ""}`,
        "linear-event": "Comment",
      },
    };
  },
  expected: (m) => ({ dedupeKey: `linear:webhook-0001:Comment:${commentOf(m.id)}:create`, threadKey: `linear:${issueOf(m)}`, repoDefaultKey: `linear:${m.where}` }),
  ref: (m) => ({ issueId: issueOf(m), teamId: m.where, trigger: "comment", commentId: commentOf(m.id), parentId: parentOf(m) }),
  nockFetch: (m, truth) => [
    mockLinear(
      "OpenSweLinearComment",
      {
        data: {
          viewer: { id: APP_USER },
          comment: {
            id: commentOf(m.id),
            body: `@open-swe ${truth.text}`,
            createdAt: new Date().toISOString(),
            user: { id: truth.user, name: truth.user, email: `${truth.user.toLowerCase()}@example.com` },
            botActor: null,
            issue: { id: issueOf(m), identifier: "ENG-1", title: "t", description: null, url: "https://linear.app/acme/issue/ENG-1", comments: { nodes: [] } },
          },
        },
      },
      { when: (v) => v["id"] === commentOf(m.id) },
    ),
  ],
  nockAck: (m) => mockLinear("OpenSweAcknowledge", { data: { reactionCreate: { success: true } } }, { when: (v) => (v as Input).input?.commentId === commentOf(m.id) }),
  nockReply: (m, match) =>
    mockLinear(
      "OpenSweCommentCreate",
      { data: { commentCreate: { success: true, comment: { id: "comment-reply", url: "https://linear.app/acme/issue/ENG-1#comment-reply" } } } },
      {
        when: (v) => {
          const input = (v as Input).input;
          return input?.parentId === parentOf(m) && match(input.body ?? "");
        },
      },
    ),
  nockListing: (m, listed) => [
    mockLinear(
      "OpenSweLinearPostedReply",
      {
        data: {
          viewer: { id: APP_USER },
          issue: { comments: { nodes: listed.map((l) => ({ body: l.markdown, createdAt: l.at.toISOString(), user: { id: l.own ? APP_USER : m.user } })) } },
        },
      },
      { when: (v) => v["id"] === issueOf(m) && typeof v["since"] === "string" },
    ),
  ],
  nockEmail: (userId, email) =>
    mockLinear("OpenSweLinearUserEmail", { data: { user: { id: userId, email: email ?? "former@example.com", active: email !== null, app: false } } }, { when: (v) => v["id"] === userId }),
  // Linear comments are Markdown: what the agent writes arrives unchanged.
  replyFormatting: [
    ["**Done**: see [the notes](https://example.com/notes), thanks @dana", "**Done**: see [the notes](https://example.com/notes), thanks @dana"],
    ["# Summary\n- fixed `a < b`\n- _tested_", "# Summary\n- fixed `a < b`\n- _tested_"],
  ],
};
