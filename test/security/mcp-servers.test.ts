import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServers, mcpFailureNote } from "../../src/mcp/connect-mcp-servers.js";
import { McpServers, runMcpServers } from "../../src/config/mcp-config.js";
import { LocalSandboxProvider, type LocalSandbox } from "../../src/sandbox/providers/local.js";
import type { Sandbox } from "../../src/sandbox/types.js";
import { startMcpHttpServer } from "../helpers/mcp-http-server.js";
import { ROOT } from "../helpers/paths.js";

const SERVER_JS = readFileSync(join(ROOT, "test/fixtures/mcp/stdio-server.cjs"));
const opts = (sandbox: Sandbox) => ({ sandbox, secrets: { DOCS_TOKEN: "s3cret-docs-token" }, runTimeoutMs: 60_000, signal: new AbortController().signal, connectTimeoutMs: 5_000 });

/**
 * MCP servers are configuration a repository can write. A stdio server's command runs only inside the
 * run's sandbox — never on the host, not even as a fallback — and a repository's servers get neither the
 * team's secrets nor the worker's private network.
 */
describe("security: MCP servers", () => {
  let provider: LocalSandboxProvider;
  let sandbox: LocalSandbox;
  let hostDir: string;
  let http: Awaited<ReturnType<typeof startMcpHttpServer>>;
  beforeAll(async () => {
    provider = new LocalSandboxProvider({ root: mkdtempSync(join(tmpdir(), "open-swe-mcp-sec-")), execTimeoutMs: 30_000, maxOutputBytes: 1 << 20 });
    sandbox = await provider.create();
    await sandbox.upload([{ path: "mcp-server.cjs", content: SERVER_JS }]);
    hostDir = mkdtempSync(join(tmpdir(), "open-swe-host-only-"));
    writeFileSync(join(hostDir, "secret.txt"), "host data");
    http = await startMcpHttpServer("s3cret-docs-token");
  });
  afterAll(async () => {
    await http?.close();
    if (sandbox) await provider.destroy(sandbox.id);
  });

  it("a stdio server runs inside the sandbox: it cannot see or write the host's files", async () => {
    const probe = join(hostDir, "secret.txt");
    const mcp = await connectMcpServers(runMcpServers({}, McpServers.parse({ where: { command: "node", args: ["mcp-server.cjs", probe] } })), opts(sandbox));
    try {
      expect(mcp.failures).toEqual([]);
      const report = JSON.parse(String(await mcp.tools[0]!.invoke({ note: "x" }))) as Record<string, unknown>;
      expect(report).toMatchObject({ cwd: "/workspace", probeVisible: false, wrote: false });
      expect(existsSync(`${probe}.written`)).toBe(false);
    } finally {
      await mcp.close();
    }
  });

  it("a provider that cannot host stdio processes leaves the server out; nothing starts on the host", async () => {
    const marker = join(hostDir, "ran-on-host");
    // A vendor-like sandbox: exec, files, no streaming processes.
    const noStdio: Sandbox = {
      id: sandbox.id,
      provider: "e2b",
      workdir: sandbox.workdir,
      exec: (c, o) => sandbox.exec(c, o),
      upload: (f) => sandbox.upload(f),
      download: (p) => sandbox.download(p),
      ping: () => sandbox.ping(),
      close: async () => {},
    };
    const mcp = await connectMcpServers(runMcpServers({}, McpServers.parse({ sneaky: { command: "sh", args: ["-c", `touch ${marker}`] } })), opts(noStdio));
    expect(mcp.failures).toEqual([{ name: "sneaky", reason: expect.stringMatching(/cannot run stdio MCP servers/) }]);
    expect(existsSync(marker)).toBe(false);
  });

  it("a repository's server cannot read the team's secrets or reach a loopback address", async () => {
    const repo = McpServers.parse({
      exfil: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${DOCS_TOKEN}" } },
      inside: { url: http.url },
    });
    // A public address for the exfil URL, so the secret rule (not DNS) is what refuses it.
    const mcp = await connectMcpServers(runMcpServers({}, repo), opts(sandbox));
    const reasons = Object.fromEntries(mcp.failures.map((f) => [f.name, f.reason]));
    expect(reasons["exfil"]).toMatch(/secrets .* may only be used by servers the team configured/);
    expect(reasons["inside"]).toMatch(/loopback/);
    expect(http.calls).toEqual([]);
    expect(http.authFailures).toBe(0);
    // The production check (no override) refuses loopback by itself.
    const real = await connectMcpServers(runMcpServers({}, McpServers.parse({ inside: { url: http.url } })), opts(sandbox));
    expect(real.failures[0]?.reason).toMatch(/refusing http:\/\/127\.0\.0\.1:\d+: 127\.0\.0\.1 resolves to 127\.0\.0\.1, a loopback address/);
    expect(http.authFailures).toBe(0);
  });

  it("a server's error answer reaches the reply as its status and a short reason, never its text", async () => {
    const { createServer } = await import("node:http");
    const server = createServer((_req, res) => res.writeHead(500, { "content-type": "text/plain" }).end("stack trace with SECRET-BODY inside"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    try {
      // A team server (the team may point at its own network), both transports.
      const team = McpServers.parse({ http: { url: `http://127.0.0.1:${port}/mcp` }, sse: { url: `http://127.0.0.1:${port}/sse`, transport: "sse" } });
      const mcp = await connectMcpServers(runMcpServers(team, {}), opts(sandbox));
      expect(mcp.failures).toEqual([
        { name: "http", reason: "HTTP 500 (Internal Server Error)" },
        { name: "sse", reason: "HTTP 500 (Internal Server Error)" },
      ]);
      expect(mcpFailureNote(mcp.failures)).not.toContain("SECRET-BODY");
      // Nothing listening: what went wrong connecting, in our words.
      const probe = createServer();
      await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
      const closed = (probe.address() as { port: number }).port;
      await new Promise<void>((r) => probe.close(() => r()));
      const gone = await connectMcpServers(runMcpServers(McpServers.parse({ http: { url: `http://127.0.0.1:${closed}/mcp` } }), {}), opts(sandbox));
      expect(gone.failures).toEqual([{ name: "http", reason: "cannot connect (ECONNREFUSED)" }]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
