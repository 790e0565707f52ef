import nock from "nock";
import { expect } from "vitest";
import { adfToStorage } from "../../../src/sources/atlassian/adf-to-storage.js";
import { markdownToAdf } from "../../../src/sources/atlassian/markdown-to-adf.js";
import { INSTALL_KEYS_URL } from "../../../src/sources/confluence/install-keys.js";
import { JWT_LEEWAY_SECONDS } from "../../../src/sources/confluence/connect-jwt.js";
import type { Mention, SourceFixture } from "../conformance.js";
import { APP_URL, CLIENT_KEY, CONFLUENCE_BASE, KID, SECRET_KEY, SITE, atlassianKeys, installToken, lifecycleBody, webhookToken } from "../../fixtures/confluence/connect.js";
import { confluenceBody } from "../../contracts/atlassian-contract.js";

export const CONFLUENCE_ENV = { APP_URL, OPEN_SWE_SECRET_KEY: SECRET_KEY, CONFLUENCE_SITES: SITE };
/** The app's own Confluence user on the install (what `/rest/api/user/current` answers). */
export const APP_ACCOUNT = "557058:app-user";
export const PAGE_ID = "98305";
const WEBHOOK_PATH = "/webhooks/confluence";
/** The host signs webhook tokens valid for this long (Atlassian: ~3 minutes). */
const TOKEN_SECONDS = 180;

const digits = (s: string) => s.replace(/\D/g, "").replace(/^0+/, "").slice(-16) || "1";
/** A Mention as Confluence sees it: a comment on one page, `where` its space, the thread the comment it replies to. */
export const commentIdOf = (m: Mention) => digits(m.id);
export const threadRootOf = (m: Mention) => (m.thread ? digits(m.thread) : commentIdOf(m));
const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const storageMention = (text: string) => `<p><ac:link><ri:user ri:account-id="${APP_ACCOUNT}" /></ac:link> ${escape(text)}</p>`;

/**
 * The webhook's body. Connect's `comment_created` carries ids, not content; the claimed author and text are
 * included here on purpose, so the suite can tamper with them (the token does not sign the body).
 */
export function confluenceCommentBody(m: Mention, at: Date): string {
  const id = commentIdOf(m);
  return JSON.stringify({
    timestamp: at.getTime(),
    userAccountId: m.user,
    comment: {
      id,
      self: `${CONFLUENCE_BASE}/spaces/${m.where}/pages/${PAGE_ID}?focusedCommentId=${id}`,
      spaceKey: m.where,
      creatorAccountId: m.user,
      parent: { id: PAGE_ID, spaceKey: m.where, title: "Runbook" },
      ...(m.thread ? { inReplyTo: { id: threadRootOf(m) } } : {}),
      body: { storage: { value: storageMention(m.text) } },
    },
  });
}

const wiki = () => nock(`https://${SITE}`);
interface PostedContent {
  ancestors?: { id: string }[];
  container: { id: string };
  body: { storage: { value: string } };
}

export const confluenceFixture: SourceFixture = {
  name: "confluence",
  env: CONFLUENCE_ENV,
  signsBody: false,
  windowSeconds: TOKEN_SECONDS + JWT_LEEWAY_SECONDS,
  /** The install through the real lifecycle route: Atlassian's RS256-signed `installed` callback (its key under nock). */
  async setup({ port }) {
    nock(INSTALL_KEYS_URL).get(`/${KID}`).reply(200, atlassianKeys().publicKey);
    const res = await fetch(`http://127.0.0.1:${port}/connect/installed`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `JWT ${installToken({ url: "/connect/installed" })}` },
      body: JSON.stringify(lifecycleBody("installed")),
    });
    expect(res.status).toBe(204);
  },
  deliver(m, { at, redelivery }) {
    const body = confluenceCommentBody(m, at);
    // A token is accepted once. Connect's tokens carry no unique claim (iss, iat, exp, qsh): two requests the
    // host signs in the same second for the same URL get the same token, and the second is refused. So each
    // mention (and each redelivery, signed again) is signed in its own second here, as separate events are:
    // a later redelivery gets a smaller offset, so its iat is later even when it is sent a second after the first.
    const seq = Number(m.id.split(".")[1] ?? 0);
    const iat = Math.floor(at.getTime() / 1000) - ((seq * 4 + 3 - (redelivery ?? 0)) % 90);
    return {
      path: WEBHOOK_PATH,
      body,
      headers: { "content-type": "application/json", authorization: `JWT ${webhookToken({ url: WEBHOOK_PATH, iat, exp: iat + TOKEN_SECONDS })}` },
    };
  },
  expected: (m) => ({
    dedupeKey: `confluence:${CLIENT_KEY}:comment:${commentIdOf(m)}`,
    threadKey: `confluence:${SITE}:${PAGE_ID}:${threadRootOf(m)}`,
    repoDefaultKey: `confluence:${m.where}`,
  }),
  ref: (m) => ({ kind: "comment", clientKey: CLIENT_KEY, pageId: PAGE_ID, commentId: commentIdOf(m), threadRoot: threadRootOf(m), spaceKey: m.where }),
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
            body: { storage: { value: storageMention(truth.text) } },
            history: { createdBy: { accountId: truth.user, displayName: truth.user } },
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
  // `match` sees the storage-format XHTML Confluence received.
  nockReply: (m, match) =>
    wiki()
      .post("/wiki/rest/api/content", (b: PostedContent) => b.container.id === PAGE_ID && b.ancestors?.[0]?.id === threadRootOf(m) && match(b.body.storage.value))
      .reply(200, confluenceBody("content", { id: "2" })),
  // One level of children per call: the replies under the thread's first comment.
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
  replyFormatting: [
    ["**Done**: see [the PR](https://github.com/octo/hello/pull/7)", '<p><strong>Done</strong>: see <a href="https://github.com/octo/hello/pull/7">the PR</a></p>'],
    [
      "# Summary\n- fixed `a < b`\n\n```sh\nnpm test\n```",
      '<h1>Summary</h1><ul><li><p>fixed <code>a &lt; b</code></p></li></ul><ac:structured-macro ac:name="code"><ac:parameter ac:name="language">sh</ac:parameter><ac:plain-text-body><![CDATA[npm test]]></ac:plain-text-body></ac:structured-macro>',
    ],
  ],
};
