import { createHmac } from "node:crypto";
import nock from "nock";
import { ATLASSIAN_MAX_AGE_MS } from "../../../src/sources/atlassian/verify-web-request.js";
import { CONFLUENCE_AUTOMATION_PATH } from "../../../src/sources/confluence/confluence-source.js";
import type { Mention, SourceFixture } from "../conformance.js";
import { SITE } from "../../fixtures/confluence/connect.js";
import { confluenceBody } from "../../contracts/atlassian-contract.js";
import { adfToStorage } from "../../../src/sources/atlassian/adf-to-storage.js";
import { markdownToAdf } from "../../../src/sources/atlassian/markdown-to-adf.js";
import { APP_ACCOUNT, PAGE_ID, commentIdOf, confluenceFixture, threadRootOf } from "./confluence-fixture.js";

export const AUTOMATION_SECRET = "confluence-automation-secret-0123456789";
export const BOT_EMAIL = "open-swe-bot@acme.test";
export const BOT_TOKEN = "ATATT-confluence-token";
/** Confluence without Connect: the site, the bot's API token, the Automation rule's secret. */
export const AUTOMATION_ENV = { CONFLUENCE_BASE_URL: `https://${SITE}`, CONFLUENCE_EMAIL: BOT_EMAIL, CONFLUENCE_API_TOKEN: BOT_TOKEN, CONFLUENCE_WEBHOOK_SECRET: AUTOMATION_SECRET };
export const BASIC_AUTH = `Basic ${Buffer.from(`${BOT_EMAIL}:${BOT_TOKEN}`).toString("base64")}`;

export const hubSignature = (body: string, secret = AUTOMATION_SECRET) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

/**
 * An Automation request's body as the README's rule sends it, plus claims a rule could add (author, text,
 * space): the suite tampers with them, and none of them may reach the run.
 */
export function automationCommentBody(m: Pick<Mention, "id" | "user" | "text" | "where">, at: Date | null, over: { pageId?: string } = {}): string {
  return JSON.stringify({
    event: "comment_created",
    page: { id: over.pageId ?? PAGE_ID, version: { number: 3 } },
    comment: { id: commentIdOf(m as Mention), author: { accountId: m.user }, body: m.text },
    space: { key: m.where },
    ...(at ? { timestamp: at.getTime() } : {}),
  });
}

const wiki = () => nock(`https://${SITE}`, { reqheaders: { authorization: BASIC_AUTH } });

/**
 * The same source through its Automation route: HMAC-signed (`X-Hub-Signature`, as a forwarder that signs
 * does), re-read and answered with the API token (basic auth on every call).
 */
export const confluenceAutomationFixture: SourceFixture = {
  name: "confluence",
  label: "confluence (Automation rule, API token)",
  env: AUTOMATION_ENV,
  windowSeconds: ATLASSIAN_MAX_AGE_MS / 1000,
  deliver(m, { at }) {
    const body = automationCommentBody(m, at);
    return { path: CONFLUENCE_AUTOMATION_PATH, body, headers: { "content-type": "application/json", "x-hub-signature": hubSignature(body) } };
  },
  expected: (m) => ({
    dedupeKey: `confluence:${SITE}:comment:${commentIdOf(m)}`,
    threadKey: `confluence:${SITE}:${PAGE_ID}:${threadRootOf(m)}`,
    repoDefaultKey: `confluence:${m.where}`,
  }),
  ref: (m) => ({ kind: "comment", site: SITE, pageId: PAGE_ID, commentId: commentIdOf(m), threadRoot: threadRootOf(m), spaceKey: m.where }),
  nockFetch(m, truth) {
    const id = commentIdOf(m);
    return [
      wiki()
        .get("/wiki/rest/api/user/current")
        .reply(200, confluenceBody("user", { accountId: APP_ACCOUNT })),
      wiki()
        .get(`/wiki/rest/api/content/${id}`)
        .query({ expand: "body.storage,history,container,space,ancestors" })
        .reply(
          200,
          confluenceBody("content", {
            id,
            type: "comment",
            body: { storage: { value: `<p><ac:link><ri:user ri:account-id="${APP_ACCOUNT}" /></ac:link> ${truth.text.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</p>` } },
            history: { createdBy: { accountId: truth.user, displayName: truth.user }, createdDate: new Date().toISOString() as never },
            container: { id: PAGE_ID, title: "Runbook" },
            space: { key: m.where },
            ancestors: m.thread ? [{ id: threadRootOf(m), type: "comment" }] : [],
          }),
        ),
    ];
  },
  nockAck: (m) =>
    wiki()
      .post("/wiki/rest/api/content", (b: PostedContent) => b.container.id === PAGE_ID && b.ancestors?.[0]?.id === threadRootOf(m) && b.body.storage.value.includes("On it"))
      .reply(200, confluenceBody("content", { id: "1" })),
  nockReply: (m, match) =>
    wiki()
      .post("/wiki/rest/api/content", (b: PostedContent) => b.container.id === PAGE_ID && b.ancestors?.[0]?.id === threadRootOf(m) && match(b.body.storage.value))
      .reply(200, confluenceBody("content", { id: "2" })),
  nockListing: (m, listed) => [
    wiki()
      .get("/wiki/rest/api/user/current")
      .reply(200, confluenceBody("user", { accountId: APP_ACCOUNT })),
    wiki()
      .get(`/wiki/rest/api/content/${threadRootOf(m)}/child/comment`)
      .query({ expand: "body.storage,history", limit: "100" })
      .reply(
        200,
        confluenceBody("comments", {
          size: listed.length,
          results: listed.map((l, i) => ({
            id: String(700 + i),
            type: "comment",
            body: { storage: { value: adfToStorage(markdownToAdf(l.markdown)), representation: "storage" } },
            history: { createdBy: { accountId: l.own ? APP_ACCOUNT : m.user }, createdDate: l.at.toISOString() as never },
          })),
        }),
      ),
  ],
  replyFormatting: confluenceFixture.replyFormatting,
};

interface PostedContent {
  ancestors?: { id: string }[];
  container: { id: string };
  body: { storage: { value: string } };
}
