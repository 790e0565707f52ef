import nock from "nock";
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sourceEventJobId } from "../../src/http/source-routes.js";
import { CONFLUENCE_AUTOMATION_PATH, CONFLUENCE_SECRET_HEADER } from "../../src/sources/confluence/confluence-source.js";
import { sourceRunJobId } from "../../src/sources/intake.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { mockInstallationToken, nockRunStart } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";
import { SITE } from "../fixtures/confluence/connect.js";
import { APP_ACCOUNT, PAGE_ID } from "../sources/confluence/confluence-fixture.js";
import { AUTOMATION_ENV, AUTOMATION_SECRET, BASIC_AUTH } from "../sources/confluence/confluence-automation-fixture.js";
import { confluenceBody } from "../contracts/atlassian-contract.js";

const API = "https://api.github.com";
const PR_URL = "https://github.com/octo/hello/pull/43";
const ALICE = { accountId: "557058:alice", displayName: "Alice" };
const COMMENT = "370449";

const script = [
  { tool_calls: [{ name: "write_file", args: { file_path: "/workspace/DEPLOY.md", content: "Run ./deploy.sh --prod\n" } }], usage: { input_tokens: 900, output_tokens: 40 } },
  { tool_calls: [{ name: "commit_and_push", args: { message: "Document the deploy script" } }], usage: { input_tokens: 1000, output_tokens: 20 } },
  { tool_calls: [{ name: "open_or_update_pull_request", args: { title: "Document the deploy script", body: "From the Runbook page." } }], usage: { input_tokens: 1100, output_tokens: 30 } },
  { tool_calls: [{ name: "confluence_comment", args: { body: `**Opened a PR**: ${PR_URL}` } }], usage: { input_tokens: 1200, output_tokens: 20 } },
  { tool_calls: [{ name: "confirming_completion", args: { summary: "Documented the deploy script" } }], usage: { input_tokens: 1300, output_tokens: 10 } },
];

interface Posted {
  ancestors?: { id: string }[];
  container: { id: string };
  body: { storage: { value: string } };
}
const inThread = (b: Posted) => b.container.id === PAGE_ID && b.ancestors?.[0]?.id === COMMENT;

/** The README's rule body for "Comment added", as Automation fills its smart values in. */
const ruleBody = (commentId: string, pageId: string) => `{"event":"comment_created","page":{"id":"${pageId}","version":{"number":4}},"comment":{"id":"${commentId}"},"space":{"key":"ENG"}}`;

describe("e2e: a Confluence Automation request (no Connect app) becomes a pushed branch, a draft PR and a reply in its comment thread", () => {
  let app: E2eApp;
  let remote: ReturnType<typeof makeBareRemote>;

  beforeAll(async () => {
    remote = makeBareRemote("octo", "hello");
    app = await startE2eApp(remote.template, "confluence-automation", AUTOMATION_ENV);
  });
  afterAll(async () => app?.stop());

  it("Comment added → Send web request with the secret header → re-read with the API token → run → confluence_comment in the thread → closing comment", async () => {
    writeFileSync(app.replay, JSON.stringify(script));
    const settings = new SettingsStore(testRedis(), app.prefix);
    await settings.setIdentity(`confluence:${ALICE.accountId}`, "dana");
    await settings.recordInstalled("octo/hello", { installationId: 7474 });
    // Every call to Confluence carries the bot's API token (basic auth), never a Connect JWT.
    const wiki = () => nock(`https://${SITE}`, { reqheaders: { authorization: BASIC_AUTH } });

    wiki()
      .get("/wiki/rest/api/user/current")
      .reply(200, confluenceBody("user", { accountId: APP_ACCOUNT }));
    wiki()
      .get(`/wiki/rest/api/content/${COMMENT}`)
      .query({ expand: "body.storage,history,container,space,ancestors" })
      .reply(
        200,
        confluenceBody("content", {
          id: COMMENT,
          type: "comment",
          body: { storage: { value: `<p><ac:link><ri:user ri:account-id="${APP_ACCOUNT}" /></ac:link> document the deploy script repo:octo/hello</p>` } },
          history: { createdBy: ALICE, createdDate: new Date().toISOString() as never },
          container: { id: PAGE_ID, title: "Runbook" },
          space: { key: "ENG" },
        }),
      );
    const ack = wiki()
      .post("/wiki/rest/api/content", (b: Posted) => inThread(b) && b.body.storage.value.includes("On it"))
      .reply(200, confluenceBody("content", { id: "370500" }));
    mockInstallationToken(7474, 2);
    nockRunStart(API, "dana");
    const pr = nock(API)
      .post("/repos/octo/hello/pulls", (b) => b.draft === true && b.base === "main" && /^open-swe\/[0-9a-f]{8}-document-the-deploy/.test(b.head))
      .reply(201, { number: 43, html_url: PR_URL });
    const agentReply = wiki()
      .post("/wiki/rest/api/content", (b: Posted) => inThread(b) && b.body.storage.value === `<p><strong>Opened a PR</strong>: <a href="${PR_URL}">${PR_URL}</a></p>`)
      .reply(200, confluenceBody("content", { id: "370501" }));
    let closing = "";
    const summary = wiki()
      .post("/wiki/rest/api/content", (b: Posted) => inThread(b) && (closing = b.body.storage.value).includes(`Pull request: <a href="${PR_URL}">`))
      .reply(200, confluenceBody("content", { id: "370502" }));

    const res = await fetch(`http://127.0.0.1:${app.proc.port}${CONFLUENCE_AUTOMATION_PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json", [CONFLUENCE_SECRET_HEADER]: AUTOMATION_SECRET },
      body: ruleBody(COMMENT, PAGE_ID),
    });
    expect(res.status).toBe(200);

    const dedupeKey = `confluence:${SITE}:comment:${COMMENT}`;
    const intake = await waitForJob(app.proc.queues.queues["source-event"], sourceEventJobId("confluence", dedupeKey));
    expect(intake.returnvalue).toMatchObject({ outcome: "queued", repo: "octo/hello", via: "text", login: "dana" });
    const done = await waitForJob(app.proc.queues.queues.agent, sourceRunJobId("confluence", dedupeKey), 60_000);
    expect(done.failedReason).toBeUndefined();
    expect(done.returnvalue).toMatchObject({ outcome: "pr_opened", prUrl: PR_URL });
    expect(ack.isDone() && pr.isDone() && agentReply.isDone() && summary.isDone()).toBe(true);
    expect(closing).toMatch(/Open SWE · replayed run/);
    const branch = remote
      .git("branch", "--list", "open-swe/*")
      .trim()
      .replace(/^\*?\s*/, "");
    expect(remote.git("show", `${branch}:DEPLOY.md`)).toBe("Run ./deploy.sh --prod\n");
  });
});
