import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunEvents } from "../../src/observability/run-events.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { SecretBox } from "../../src/store/secret-box.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { threadId } from "../../src/shared/thread-id.js";
import { toolMessages } from "../helpers/approval-run.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { issueCommentPayload, mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob } from "../helpers/jobs.js";
import { startMcpHttpServer } from "../helpers/mcp-http-server.js";
import { ROOT } from "../helpers/paths.js";
import { testRedis } from "../helpers/redis.js";

const API = "https://api.github.com";
const KEY = "c".repeat(64);

describe("e2e: the team's MCP servers join a GitHub run", () => {
  let app: E2eApp;
  let http: Awaited<ReturnType<typeof startMcpHttpServer>>;
  beforeAll(async () => {
    http = await startMcpHttpServer("team-docs-token");
    const remote = makeBareRemote("octo", "hello", { "README.md": "# hello\n", "mcp-server.cjs": readFileSync(join(ROOT, "test/fixtures/mcp/stdio-server.cjs"), "utf8") });
    app = await startE2eApp(remote.template, "mcp", { OPEN_SWE_SECRET_KEY: KEY });
  });
  afterAll(async () => {
    await app?.stop();
    await http?.close();
  });

  it("an HTTP server on loopback and a stdio server in the sandbox contribute tools the model calls; a broken one is reported and left out", async () => {
    const settings = new SettingsStore(testRedis(), app.prefix);
    // The header's secret comes from settings, sealed with the deployment key.
    await settings.setMcpSecret("DOCS_TOKEN", "team-docs-token", new SecretBox(KEY));
    await settings.setMcpServer("docs", { url: http.url, headers: { Authorization: "Bearer ${DOCS_TOKEN}" } });
    await settings.setMcpServer("local", { command: "node", args: ["mcp-server.cjs"] });
    await settings.setMcpServer("ghost", { command: "no-such-mcp-server" });
    await settings.setToolPolicy("mcp__*", "always_allow");
    writeFileSync(
      app.replay,
      JSON.stringify([
        { tool_calls: [{ name: "mcp__docs__search", args: { query: "flaky tests" } }] },
        { tool_calls: [{ name: "mcp__local__whereami", args: { note: "from the run" } }] },
        { tool_calls: [{ name: "github_comment", args: { body: "Looked it up." } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] },
      ]),
    );
    mockInstallationToken(7301, 2);
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });
    nock(API).post("/repos/octo/hello/issues/comments/131/reactions").reply(201, {});
    nock(API).post("/repos/octo/hello/issues/9/comments", { body: "Looked it up." }).reply(201, { id: 931 });
    const summary = nock(API)
      .patch("/repos/octo/hello/issues/comments/931", (b) => /MCP server left out of this run: `ghost` \(/.test(b.body))
      .reply(200, { id: 931 });
    const res = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 7301, number: 9, issueId: 9009, commentId: 131, body: "@open-swe check the docs on flaky tests" }),
    });
    const done = await waitForJob(app.proc.queues.queues.agent, deliveryJobId(res.deliveryId), 60_000);
    expect(done.failedReason).toBeUndefined();
    expect(done.returnvalue).toMatchObject({ outcome: "completed" });
    expect(summary.isDone()).toBe(true);

    const thread = threadId({ kind: "issue", issueId: 9009 });
    expect(await toolMessages(app.prefix, thread, "mcp__docs__search")).toEqual(["3 pages about flaky tests"]);
    expect(http.calls).toEqual(["flaky tests"]);
    const where = JSON.parse((await toolMessages(app.prefix, thread, "mcp__local__whereami"))[0]!) as Record<string, unknown>;
    expect(where).toMatchObject({ cwd: "/workspace", note: "from the run" });
    const events = await new RunEvents(testRedis(), app.prefix).recent(50);
    expect(events.find((e) => e.type === "tool.executed" && e.name === "mcp__docs__search")).toMatchObject({ server: "docs", status: "success" });
  });
});
