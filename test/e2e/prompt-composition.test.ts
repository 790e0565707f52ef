import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { SSE_HEADERS, anthropicSse } from "../agent/anthropic-sse.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { issueCommentPayload, mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { waitForJob } from "../helpers/jobs.js";
import { startMcpHttpServer } from "../helpers/mcp-http-server.js";
import { testRedis } from "../helpers/redis.js";

const API = "https://api.github.com";
const CONFIG = ["agent:", "  instructions: |", "    Run `make check` before every push.", "  tools:", '    "mcp__blocked__*": deny', ""].join("\n");

interface AnthropicRequest {
  system: Array<{ type: string; text: string }> | string;
}
const systemText = (r: AnthropicRequest) => (typeof r.system === "string" ? r.system : r.system.map((b) => b.text).join(""));

describe("e2e: the system prompt a GitHub run sends is composed from its parts (seed 004)", () => {
  let app: E2eApp;
  let docs: Awaited<ReturnType<typeof startMcpHttpServer>>;
  let blocked: Awaited<ReturnType<typeof startMcpHttpServer>>;
  beforeAll(async () => {
    docs = await startMcpHttpServer("docs-token");
    blocked = await startMcpHttpServer("blocked-token");
    app = await startE2eApp(makeBareRemote("octo", "hello").template, "prompt", { OPEN_SWE_MODEL: "claude-sonnet-4-6", ANTHROPIC_API_KEY: "sk-ant-test" });
  });
  afterAll(async () => {
    await app?.stop();
    await docs?.close();
    await blocked?.close();
  });

  it("global → mode → repository instructions → the requester's instructions → tool policies and MCP servers (connected, failed, denied and not started)", async () => {
    const settings = new SettingsStore(testRedis(), app.prefix);
    await settings.setMcpServer("docs", { url: docs.url, headers: { Authorization: "Bearer docs-token" } });
    await settings.setMcpServer("blocked", { url: blocked.url, headers: { Authorization: "Bearer blocked-token" } });
    await settings.setMcpServer("ghost", { command: "no-such-mcp-server" });
    await settings.setProfile("dana", { instructions: "Answer in French." });

    const bodies: AnthropicRequest[] = [];
    nock("https://api.anthropic.com")
      .post("/v1/messages")
      .reply(
        200,
        (_u, body) => (bodies.push(body as AnthropicRequest), anthropicSse([{ type: "tool_use", id: "toolu_1", name: "confirming_completion", input: { summary: "nothing to do" } }])),
        SSE_HEADERS,
      );
    mockInstallationToken(7401, 2);
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(200, CONFIG);
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });
    nock(API).post("/repos/octo/hello/issues/comments/141/reactions").reply(201, {});
    nock(API).post("/repos/octo/hello/issues/14/comments").reply(201, { id: 941 });
    const res = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 7401, number: 14, issueId: 1414, commentId: 141, body: "@open-swe look at the docs" }),
    });
    const done = await waitForJob(app.proc.queues.queues.agent, deliveryJobId(res.deliveryId), 60_000);
    expect(done.failedReason).toBeUndefined();
    expect(bodies).toHaveLength(1);
    const system = systemText(bodies[0]!);
    // The global prompt first, then the parts in seed 004's order.
    const at = (needle: string) => {
      const i = system.indexOf(needle);
      expect(i, needle).toBeGreaterThan(0);
      return i;
    };
    const order = [
      at("## Mode: task\n\nThis run carries out a request"),
      at("## Repository instructions\n\nFrom the repository's `.github/open-swe.yml`:\n\nRun `make check` before every push."),
      at("## Instructions from @dana\n\nFrom their profile; they apply to their runs:\n\nAnswer in French."),
      at("## Tool policies"),
      at("## MCP servers\n\nConnected: `docs`; their tools are named `mcp__<server>__<tool>`.\nFailed to start, so not available this run: `ghost` ("),
    ];
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(system).toContain("Configured but denied by policy, so not started: `blocked`.");
    // A server whose tools are all denied is never started: not one request reached it.
    expect(blocked.requests).toBe(0);
    expect(docs.requests).toBeGreaterThan(0);
  });
});
