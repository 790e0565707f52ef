import nock from "nock";
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sourceEventJobId } from "../../src/http/source-routes.js";
import { adfToText } from "../../src/sources/atlassian/adf-to-text.js";
import { sourceRunJobId } from "../../src/sources/intake.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { mockInstallationToken, nockRunStart } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";
import { BASE_URL, BOT_ACCOUNT, SITE, adfBody } from "../fixtures/jira/payloads.js";
import { JIRA_ENV, signJira } from "../sources/jira/jira-fixture.js";
import { jiraBody } from "../contracts/atlassian-contract.js";

const API = "https://api.github.com";
const PR_URL = "https://github.com/octo/hello/pull/31";
const ALICE = { accountId: "557058:alice", displayName: "Alice" };

const script = [
  { tool_calls: [{ name: "write_file", args: { file_path: "/workspace/HEALTH.md", content: "GET /health returns 200\n" } }], usage: { input_tokens: 900, output_tokens: 40 } },
  { tool_calls: [{ name: "commit_and_push", args: { message: "Document the health endpoint" } }], usage: { input_tokens: 1000, output_tokens: 20 } },
  { tool_calls: [{ name: "open_or_update_pull_request", args: { title: "Document the health endpoint", body: "For ENG-77." } }], usage: { input_tokens: 1100, output_tokens: 30 } },
  { tool_calls: [{ name: "jira_comment", args: { body: `**Opened a PR**: ${PR_URL}` } }], usage: { input_tokens: 1200, output_tokens: 20 } },
  { tool_calls: [{ name: "confirming_completion", args: { summary: "Documented /health" } }], usage: { input_tokens: 1300, output_tokens: 10 } },
];

describe("e2e: a Jira comment mention becomes a pushed branch, a draft PR and a Jira reply with its link", () => {
  let app: E2eApp;
  let remote: ReturnType<typeof makeBareRemote>;

  beforeAll(async () => {
    remote = makeBareRemote("octo", "hello");
    app = await startE2eApp(remote.template, "jira", JIRA_ENV);
  });
  afterAll(async () => app?.stop());

  it("[~bot] document the health endpoint repo:octo/hello → PR → jira_comment with the link → closing comment", async () => {
    writeFileSync(app.replay, JSON.stringify(script));
    const settings = new SettingsStore(testRedis(), app.prefix);
    await settings.setIdentity(`jira:${ALICE.accountId}`, "dana");
    await settings.recordInstalled("octo/hello", { installationId: 6161 });
    const text = "document the health endpoint repo:octo/hello";
    const jira = () => nock(BASE_URL);

    // Intake: the worker re-reads the comment (the payload's text is not what runs) and acknowledges.
    jira()
      .get("/rest/api/3/myself")
      .reply(200, jiraBody("myself", { accountId: BOT_ACCOUNT }));
    jira()
      .get("/rest/api/3/issue/ENG-77")
      .query(true)
      .reply(200, jiraBody("issue", { key: "ENG-77", fields: { summary: "Health endpoint docs", description: null } }));
    jira()
      .get("/rest/api/3/issue/ENG-77/comment/30001")
      .reply(200, { id: "30001", author: ALICE, body: adfBody(BOT_ACCOUNT, text) });
    const ack = jira()
      .post("/rest/api/3/issue/ENG-77/comment", (b: { body: unknown }) => adfToText(b.body).text.startsWith("👀"))
      .reply(201, jiraBody("comment", { id: "30002" }));
    mockInstallationToken(6161, 2);
    nockRunStart(API, "dana");
    const pr = nock(API)
      .post("/repos/octo/hello/pulls", (b) => b.draft === true && b.base === "main" && /^open-swe\/[0-9a-f]{8}-document-the-health/.test(b.head))
      .reply(201, { number: 31, html_url: PR_URL });
    // The agent's own reply, in ADF with a real link mark.
    const agentReply = jira()
      .post("/rest/api/3/issue/ENG-77/comment", (b: { body: { content: { content: { text: string; marks?: { type: string; attrs?: { href: string } }[] }[] }[] } }) => {
        const nodes = b.body.content[0]?.content ?? [];
        return nodes[0]?.text === "Opened a PR" && nodes[0].marks?.[0]?.type === "strong" && nodes.some((n) => n.text === PR_URL && n.marks?.[0]?.attrs?.href === PR_URL);
      })
      .reply(201, jiraBody("comment", { id: "30003" }));
    let closing = "";
    const summary = jira()
      .post("/rest/api/3/issue/ENG-77/comment", (b: { body: unknown }) => (closing = adfToText(b.body).text).startsWith(`Pull request: ${PR_URL}`))
      .reply(201, jiraBody("comment", { id: "30004" }));

    const body = JSON.stringify({
      timestamp: Date.now(),
      webhookEvent: "comment_created",
      comment: { id: "30001", author: ALICE, body: `[~accountid:${BOT_ACCOUNT}] ${text}` },
      issue: { id: "10077", self: `${BASE_URL}/rest/api/2/10077`, key: "ENG-77", fields: { summary: "Health endpoint docs" } },
    });
    const res = await fetch(`http://127.0.0.1:${app.proc.port}/webhooks/jira`, { method: "POST", headers: { "content-type": "application/json", "x-hub-signature": signJira(body) }, body });
    expect(res.status).toBe(200);

    const dedupeKey = `jira:${SITE}:comment:30001`;
    const intake = await waitForJob(app.proc.queues.queues["source-event"], sourceEventJobId("jira", dedupeKey));
    expect(intake.returnvalue).toMatchObject({ outcome: "queued", repo: "octo/hello", via: "text", login: "dana" });
    const done = await waitForJob(app.proc.queues.queues.agent, sourceRunJobId("jira", dedupeKey), 60_000);
    expect(done.failedReason).toBeUndefined();
    expect(done.returnvalue).toMatchObject({ outcome: "pr_opened", prUrl: PR_URL });
    expect(ack.isDone() && pr.isDone() && agentReply.isDone() && summary.isDone()).toBe(true);
    expect(closing).toMatch(/Open SWE · replayed run/);
    const branch = remote
      .git("branch", "--list", "open-swe/*")
      .trim()
      .replace(/^\*?\s*/, "");
    expect(remote.git("show", `${branch}:HEALTH.md`)).toBe("GET /health returns 200\n");
  });
});
