import nock from "nock";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { jiraSource } from "../../../src/sources/jira/jira-source.js";
import { markdownToAdf } from "../../../src/sources/atlassian/markdown-to-adf.js";
import { ALICE, BASE_URL, BOT_ACCOUNT, SITE, adfBody } from "../../fixtures/jira/payloads.js";
import { jiraBody } from "../../contracts/atlassian-contract.js";

const env = {
  JIRA_BASE_URL: BASE_URL,
  JIRA_EMAIL: "bot@acme.test",
  JIRA_API_TOKEN: "jira-api-token",
  JIRA_WEBHOOK_SECRET: "jira-webhook-secret-0123456789",
  MENTION_HANDLES: ["open-swe", "openswe"],
};
const AUTH = `Basic ${Buffer.from("bot@acme.test:jira-api-token").toString("base64")}`;
const log = pino({ level: "silent" });
const client = () => jiraSource(env).client(log);
const jira = () => nock(BASE_URL, { reqheaders: { authorization: AUTH } });
const commentRef = { kind: "comment", site: SITE, issueKey: "ENG-42", commentId: "10100" };
const issueRef = { kind: "issue", site: SITE, issueKey: "ENG-42" };

const issue = (fields: Record<string, unknown> = {}) => ({ key: "ENG-42", fields: { summary: "Login redirect loops", description: adfBody("someone", "see logs"), ...fields } });
const myself = () =>
  jira()
    .get("/rest/api/3/myself")
    .reply(200, jiraBody("myself", { accountId: BOT_ACCOUNT }));
const getIssue = (body = issue()) => jira().get("/rest/api/3/issue/ENG-42").query(true).reply(200, jiraBody("issue", body));

describe("Jira client: fetchMessage re-reads before trusting", () => {
  it("returns the comment's text and author from the API, with the issue as context", async () => {
    myself();
    getIssue();
    jira()
      .get("/rest/api/3/issue/ENG-42/comment/10100")
      .reply(200, { id: "10100", author: ALICE, body: adfBody(BOT_ACCOUNT, "please fix the redirect") });
    expect(await client().fetchMessage(commentRef)).toEqual({
      text: "please fix the redirect",
      user: { id: ALICE.accountId, name: ALICE.displayName, email: ALICE.emailAddress },
      context: "Jira issue ENG-42: Login redirect loops\n\n@Open SWE see logs",
    });
  });

  it("nothing runs when the comment mentions another account (the payload's claim is not enough)", async () => {
    myself();
    getIssue();
    jira()
      .get("/rest/api/3/issue/ENG-42/comment/10100")
      .reply(200, { id: "10100", author: ALICE, body: adfBody("someone-else", "look") });
    expect(await client().fetchMessage(commentRef)).toBeNull();
  });

  it("nothing runs on the bot's own comment", async () => {
    myself();
    getIssue();
    jira()
      .get("/rest/api/3/issue/ENG-42/comment/10100")
      .reply(200, { id: "10100", author: { accountId: BOT_ACCOUNT }, body: adfBody(BOT_ACCOUNT, "loop") });
    expect(await client().fetchMessage(commentRef)).toBeNull();
  });

  it("a deleted comment is null", async () => {
    myself();
    getIssue();
    jira()
      .get("/rest/api/3/issue/ENG-42/comment/10100")
      .reply(404, jiraBody("error", { errorMessages: ["gone"] }));
    expect(await client().fetchMessage(commentRef)).toBeNull();
  });

  it("a new issue: its summary and description, its creator", async () => {
    myself();
    getIssue(issue({ description: { type: "doc", version: 1, content: [{ type: "paragraph", content: [{ type: "text", text: "@open-swe add /health" }] }] }, creator: ALICE }));
    expect(await client().fetchMessage(issueRef)).toEqual({
      text: "Login redirect loops\n\n@open-swe add /health",
      user: { id: ALICE.accountId, name: ALICE.displayName, email: ALICE.emailAddress },
    });
  });

  it("a server error is thrown (the job retries), a bad ref is refused", async () => {
    myself();
    jira().get("/rest/api/3/issue/ENG-42").query(true).reply(503, "busy");
    await expect(client().fetchMessage(commentRef)).rejects.toThrow();
    await expect(client().fetchMessage({ kind: "comment", issueKey: "x" })).rejects.toThrow(/not a Jira reference/);
  });
});

describe("Jira client: acknowledge and reply post ADF comments", () => {
  it("reply converts Markdown to ADF", async () => {
    const md = "Opened **the PR**: https://github.com/acme/web/pull/7\n\n- fixed redirect";
    jira()
      .post("/rest/api/3/issue/ENG-42/comment", (b: { body: unknown }) => JSON.stringify(b.body) === JSON.stringify(markdownToAdf(md)))
      .reply(201, jiraBody("comment", { id: "10200" }));
    await client().reply(commentRef, md);
  });

  it("acknowledge posts one short comment", async () => {
    jira()
      .post("/rest/api/3/issue/ENG-42/comment", (b: { body: { content: unknown[] } }) => JSON.stringify(b.body).includes("On it"))
      .reply(201, jiraBody("comment", { id: "10201" }));
    await client().acknowledge(commentRef);
  });
});

describe("Jira tools", () => {
  const tools = () =>
    Object.fromEntries(
      client()
        .tools(commentRef)
        .map((t) => [t.name, t]),
    );

  it("offers exactly the six tools", () => {
    expect(Object.keys(tools()).sort()).toEqual(["jira_comment", "jira_create_issue", "jira_get_issue", "jira_get_issue_comments", "jira_list_projects", "jira_update_issue"]);
  });

  it("jira_comment posts ADF on the request's issue; another project is refused without a call", async () => {
    jira()
      .post("/rest/api/3/issue/ENG-42/comment", (b: { body: { type: string } }) => b.body.type === "doc")
      .reply(201, jiraBody("comment", { id: "10300" }));
    expect(await tools().jira_comment!.invoke({ body: "done: `npm test` passes" })).toBe("Comment 10300 posted on ENG-42.");
    expect(await tools().jira_comment!.invoke({ issueKey: "OPS-1", body: "x" })).toMatch(/Refused: OPS-1 is outside project ENG/);
  });

  it("jira_get_issue reads fields and the description as text", async () => {
    jira()
      .get("/rest/api/3/issue/ENG-7")
      .query({ fields: "summary,description,status,issuetype,assignee,labels" })
      .reply(200, { key: "ENG-7", fields: { summary: "S", status: { name: "To Do" }, issuetype: { name: "Bug" }, assignee: null, labels: ["web"], description: adfBody("x", "steps") } });
    expect(JSON.parse(await tools().jira_get_issue!.invoke({ issueKey: "ENG-7" }))).toEqual({
      key: "ENG-7",
      url: `${BASE_URL}/browse/ENG-7`,
      summary: "S",
      type: "Bug",
      status: "To Do",
      assignee: null,
      labels: ["web"],
      description: "@Open SWE steps",
    });
  });

  it("jira_get_issue_comments lists newest first", async () => {
    jira()
      .get("/rest/api/3/issue/ENG-42/comment")
      .query({ maxResults: "2", orderBy: "-created" })
      .reply(200, { total: 5, comments: [{ id: "2", author: { displayName: "Bob" }, created: "c", body: adfBody("x", "two") }] });
    expect(JSON.parse(await tools().jira_get_issue_comments!.invoke({ issueKey: "ENG-42", maxResults: 2 }))).toEqual({
      total: 5,
      newestFirst: [{ id: "2", author: "Bob", created: "c", text: "@Open SWE two" }],
    });
  });

  it("jira_create_issue creates in the request's project with an ADF description", async () => {
    jira()
      .post(
        "/rest/api/3/issue",
        (b: { fields: Record<string, unknown> }) =>
          JSON.stringify(b.fields) === JSON.stringify({ project: { key: "ENG" }, summary: "Follow-up", issuetype: { name: "Task" }, description: markdownToAdf("# Why\n\n1. a"), labels: ["agent"] }),
      )
      .reply(201, jiraBody("created", { id: "1", key: "ENG-99" }));
    expect(await tools().jira_create_issue!.invoke({ summary: "Follow-up", description: "# Why\n\n1. a", labels: ["agent"] })).toBe(`Created ENG-99: ${BASE_URL}/browse/ENG-99`);
    expect(await tools().jira_create_issue!.invoke({ projectKey: "OPS", summary: "x" })).toMatch(/Refused/);
  });

  it("jira_update_issue edits the given fields; Jira's refusal is told to the model", async () => {
    jira()
      .put("/rest/api/3/issue/ENG-42", { fields: { summary: "New title" } })
      .reply(204);
    expect(await tools().jira_update_issue!.invoke({ issueKey: "ENG-42", summary: "New title" })).toBe("Updated ENG-42 (summary).");
    jira()
      .put("/rest/api/3/issue/ENG-42")
      .reply(400, jiraBody("error", { errorMessages: [], errors: { labels: "Field 'labels' cannot be set." } }));
    expect(await tools().jira_update_issue!.invoke({ issueKey: "ENG-42", labels: ["x"] })).toMatch(/^Jira refused the request \(HTTP 400\)/);
    // Jira's outage is told as Jira's, not as a fault of the request.
    jira()
      .put("/rest/api/3/issue/ENG-42")
      .reply(503, jiraBody("error", { errorMessages: ["Service Unavailable"], errors: {} }));
    expect(await tools().jira_update_issue!.invoke({ issueKey: "ENG-42", summary: "Again" })).toMatch(/^Jira failed \(HTTP 503\).*This is an upstream error, not a problem with the request/);
    expect(await tools().jira_update_issue!.invoke({ issueKey: "ENG-42" })).toMatch(/Nothing to update/);
    // Writes stay in the request's project: planted text naming another project's issue edits nothing.
    expect(await tools().jira_update_issue!.invoke({ issueKey: "OPS-1", summary: "pwned" })).toBe("Refused: OPS-1 is outside project ENG, where this request came from.");
  });

  it("jira_list_projects", async () => {
    jira()
      .get("/rest/api/3/project/search")
      .query({ maxResults: "50", query: "eng" })
      .reply(200, jiraBody("projects", { total: 1, values: [{ key: "ENG", name: "Engineering", id: "1" }] }));
    expect(JSON.parse(await tools().jira_list_projects!.invoke({ query: "eng" }))).toEqual({ total: 1, projects: [{ key: "ENG", name: "Engineering" }] });
  });
});
