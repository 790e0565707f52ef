import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenSweAgent } from "../../src/agent/create-agent.js";
import { buildAgentMiddleware } from "../../src/agent/middleware/build-agent-middleware.js";
import { connectMcpServers, mcpFailureNote } from "../../src/mcp/connect-mcp-servers.js";
import { McpServers, runMcpServers } from "../../src/config/mcp-config.js";
import { LocalSandboxProvider, type LocalSandbox } from "../../src/sandbox/providers/local.js";
import { ROOT } from "../helpers/paths.js";
import { startMcpHttpServer } from "../helpers/mcp-http-server.js";

const SERVER_JS = readFileSync(join(ROOT, "test/fixtures/mcp/stdio-server.cjs"));
const stack = () => buildAgentMiddleware({ modelCallLimit: 20, workspaceRoot: "/", readWorkspaceFile: async () => undefined, drainFollowUps: async () => [], notifyStepLimit: async () => {} });

describe("MCP servers: a loopback HTTP server and a stdio server inside the local sandbox", () => {
  let provider: LocalSandboxProvider;
  let sandbox: LocalSandbox;
  let http: Awaited<ReturnType<typeof startMcpHttpServer>>;
  beforeAll(async () => {
    provider = new LocalSandboxProvider({ root: mkdtempSync(join(tmpdir(), "open-swe-mcp-")), execTimeoutMs: 30_000, maxOutputBytes: 1 << 20 });
    sandbox = await provider.create();
    await sandbox.upload([{ path: "mcp-server.cjs", content: SERVER_JS }]);
    http = await startMcpHttpServer("s3cret-docs-token");
  });
  afterAll(async () => {
    await http?.close();
    if (sandbox) await provider.destroy(sandbox.id);
  });

  it("both contribute tools named mcp__<server>__<tool> that the scripted model calls; the secret goes in the header", async () => {
    const team = McpServers.parse({ docs: { url: http.url, headers: { Authorization: "Bearer ${DOCS_TOKEN}" } }, local: { command: "node", args: ["mcp-server.cjs"] } });
    const mcp = await connectMcpServers(runMcpServers(team, {}), { sandbox, secrets: { DOCS_TOKEN: "s3cret-docs-token" }, runTimeoutMs: 60_000, signal: new AbortController().signal });
    try {
      expect(mcp.failures).toEqual([]);
      expect(mcp.tools.map((t) => t.name).sort()).toEqual(["mcp__docs__search", "mcp__local__whereami"]);
      const model = fakeModel()
        .respondWithTools([{ name: "mcp__docs__search", args: { query: "retries" } }])
        .respondWithTools([{ name: "mcp__local__whereami", args: { note: "hi" } }])
        .respondWithTools([{ name: "confirming_completion", args: { summary: "done" } }]);
      const agent = createOpenSweAgent({ model, systemPrompt: "agent", tools: mcp.tools, middleware: stack() });
      const result = await agent.invoke({ messages: [new HumanMessage("look it up")] });
      const out = (name: string) => result.messages.filter((m) => ToolMessage.isInstance(m) && m.name === name).map((m) => m.text);
      expect(out("mcp__docs__search")).toEqual(["3 pages about retries"]);
      expect(http.calls).toEqual(["retries"]);
      expect(JSON.parse(out("mcp__local__whereami")[0]!)).toMatchObject({ cwd: "/workspace", note: "hi" });
    } finally {
      await mcp.close();
    }
  });

  it("a server that fails to start or list its tools in time is left out with its reason; the others still join", async () => {
    const team = McpServers.parse({
      docs: { url: http.url, headers: { Authorization: "Bearer ${DOCS_TOKEN}" } },
      silent: { command: "sleep", args: ["30.4217"] },
      ghost: { command: "no-such-mcp-server" },
      locked: { url: http.url, headers: { Authorization: "Bearer wrong" } },
      unset: { url: http.url, headers: { Authorization: "Bearer ${MISSING}" } },
    });
    const started = Date.now();
    const mcp = await connectMcpServers(runMcpServers(team, {}), {
      sandbox,
      secrets: { DOCS_TOKEN: "s3cret-docs-token" },
      runTimeoutMs: 60_000,
      signal: new AbortController().signal,
      connectTimeoutMs: 1_500,
    });
    try {
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(mcp.connected).toEqual(["docs"]);
      const reasons = Object.fromEntries(mcp.failures.map((f) => [f.name, f.reason]));
      expect(Object.keys(reasons).sort()).toEqual(["ghost", "locked", "silent", "unset"]);
      expect(reasons["silent"]).toMatch(/within 2 s/);
      expect(reasons["ghost"]).toMatch(/not found|closed|within/i);
      expect(reasons["unset"]).toMatch(/secret MISSING is not set/);
      expect(mcpFailureNote(mcp.failures)).toMatch(/^MCP servers left out of this run: `ghost` \(/);
      // The silent server's process was ended when it was left out (seen from the host's pid namespace).
      const alive = () => spawnSync("pgrep", ["-f", "sleep 30.4217"]).status === 0;
      for (let i = 0; alive() && i < 40; i++) await new Promise((r) => setTimeout(r, 50));
      expect(alive()).toBe(false);
    } finally {
      await mcp.close();
    }
  });
});
