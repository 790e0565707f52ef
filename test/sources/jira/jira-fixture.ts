import { createHmac } from "node:crypto";
import nock from "nock";
import { markdownToAdf } from "../../../src/sources/atlassian/markdown-to-adf.js";
import { JIRA_MAX_AGE_MS } from "../../../src/sources/jira/verify-jira-request.js";
import type { Mention, SourceFixture } from "../conformance.js";
import { BASE_URL, BOT_ACCOUNT, SITE } from "../../fixtures/jira/payloads.js";
import { jiraBody } from "../../contracts/atlassian-contract.js";

export const JIRA_SECRET = "jira-conformance-secret-0123456789";
export const JIRA_ENV = { JIRA_BASE_URL: BASE_URL, JIRA_EMAIL: "bot@acme.test", JIRA_API_TOKEN: "jira-api-token", JIRA_WEBHOOK_SECRET: JIRA_SECRET };

const digits = (s: string) => s.replace(/\D/g, "").replace(/^0+/, "").slice(-12) || "1";
/** A Mention as Jira sees it: `where` is the project, the thread is the issue, `id` the comment. */
export const issueKeyOf = (m: Mention) => `${m.where}-${digits(m.thread ?? m.id).slice(-9)}`;
export const commentIdOf = (m: Mention) => digits(m.id);

const adfMention = (text: string) => ({
  type: "doc",
  version: 1,
  content: [
    {
      type: "paragraph",
      content: [
        { type: "mention", attrs: { id: BOT_ACCOUNT, text: "@Open SWE" } },
        { type: "text", text: ` ${text}` },
      ],
    },
  ],
});

export function jiraCommentBody(m: Mention, at: Date): string {
  const issueKey = issueKeyOf(m);
  return JSON.stringify({
    timestamp: at.getTime(),
    webhookEvent: "comment_created",
    comment: { id: commentIdOf(m), author: { accountId: m.user, displayName: m.user }, body: `[~accountid:${BOT_ACCOUNT}] ${m.text}` },
    issue: { id: "10001", self: `${BASE_URL}/rest/api/2/10001`, key: issueKey, fields: { summary: "An issue", project: { key: m.where } } },
  });
}

export const signJira = (body: string, secret = JIRA_SECRET) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

const jira = () => nock(BASE_URL);

export const jiraFixture: SourceFixture = {
  name: "jira",
  env: JIRA_ENV,
  windowSeconds: JIRA_MAX_AGE_MS / 1000,
  deliver(m, { at, redelivery }) {
    const body = jiraCommentBody(m, at);
    return {
      path: "/webhooks/jira",
      body,
      headers: {
        "content-type": "application/json",
        "x-hub-signature": signJira(body),
        "x-atlassian-webhook-identifier": `wh-${commentIdOf(m)}-${redelivery ?? 0}`,
        ...(redelivery ? { "x-atlassian-webhook-retry": String(redelivery) } : {}),
      },
    };
  },
  expected: (m) => ({ dedupeKey: `jira:${SITE}:comment:${commentIdOf(m)}`, threadKey: `jira:${SITE}:${issueKeyOf(m)}`, repoDefaultKey: `jira:${m.where}` }),
  ref: (m) => ({ kind: "comment", site: SITE, issueKey: issueKeyOf(m), commentId: commentIdOf(m) }),
  nockFetch(m, truth) {
    const issueKey = issueKeyOf(m);
    return [
      jira()
        .get("/rest/api/3/myself")
        .reply(200, jiraBody("myself", { accountId: BOT_ACCOUNT })),
      jira()
        .get(`/rest/api/3/issue/${issueKey}`)
        .query(true)
        .reply(200, jiraBody("issue", { key: issueKey, fields: { summary: "An issue", description: null } })),
      jira()
        .get(`/rest/api/3/issue/${issueKey}/comment/${commentIdOf(m)}`)
        .reply(200, jiraBody("comment", { id: commentIdOf(m), author: { accountId: truth.user, displayName: truth.user }, body: adfMention(truth.text) })),
    ];
  },
  nockAck: (m) =>
    jira()
      .post(`/rest/api/3/issue/${issueKeyOf(m)}/comment`, (b: { body: unknown }) => JSON.stringify(b.body).includes("On it"))
      .reply(201, jiraBody("comment", { id: "1" })),
  // `match` sees the ADF document Jira received, as JSON.
  nockReply: (m, match) =>
    jira()
      .post(`/rest/api/3/issue/${issueKeyOf(m)}/comment`, (b: { body: unknown }) => match(JSON.stringify(b.body)))
      .reply(201, jiraBody("comment", { id: "2" })),
  // Newest first (`orderBy=-created`); Jira's timestamps carry a `+0000` offset.
  nockListing: (m, listed) => [
    jira()
      .get("/rest/api/3/myself")
      .reply(200, jiraBody("myself", { accountId: BOT_ACCOUNT })),
    jira()
      .get(`/rest/api/3/issue/${issueKeyOf(m)}/comment`)
      .query((q) => q["orderBy"] === "-created" && q["maxResults"] === "100")
      .reply(
        200,
        jiraBody("comments", {
          startAt: 0,
          maxResults: 100,
          total: listed.length,
          comments: [...listed]
            .sort((a, b) => b.at.getTime() - a.at.getTime())
            .map((l, i) => ({
              id: String(500 + i),
              author: { accountId: l.own ? BOT_ACCOUNT : m.user },
              body: markdownToAdf(l.markdown) as never,
              created: l.at.toISOString().replace("Z", "+0000"),
            })),
        }),
      ),
  ],
  replyFormatting: [
    ["**Done**: see [the PR](https://github.com/octo/hello/pull/7)", JSON.stringify(markdownToAdf("**Done**: see [the PR](https://github.com/octo/hello/pull/7)"))],
    [
      "# Summary\n- fixed `a < b`\n\n```sh\nnpm test\n```",
      JSON.stringify({
        version: 1,
        type: "doc",
        content: [
          { type: "heading", attrs: { level: 1 }, content: [{ type: "text", text: "Summary" }] },
          {
            type: "bulletList",
            content: [
              {
                type: "listItem",
                content: [
                  {
                    type: "paragraph",
                    content: [
                      { type: "text", text: "fixed " },
                      { type: "text", text: "a < b", marks: [{ type: "code" }] },
                    ],
                  },
                ],
              },
            ],
          },
          { type: "codeBlock", attrs: { language: "sh" }, content: [{ type: "text", text: "npm test" }] },
        ],
      }),
    ],
  ],
};
