import type { StructuredToolInterface } from "@langchain/core/tools";
import { loadMcpTools } from "@langchain/mcp-adapters";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { resolvePublicUrl } from "../net/http-guard.js";
import { errorMessage } from "../errors.js";
import { shellJoin } from "../sandbox/shell-quote.js";
import type { Sandbox } from "../sandbox/types.js";
import { resolveHeaders, type McpServerEntry } from "../config/mcp-config.js";
import { SandboxStdioTransport } from "./sandbox-stdio-transport.js";

export const MCP_CONNECT_TIMEOUT_MS = 10_000;

export interface McpConnectOptions {
  sandbox: Sandbox;
  /** Named secrets for team servers' headers (`MCP_SECRET_<NAME>`). */
  secrets: Readonly<Record<string, string>>;
  /** How long a stdio server may live: the run's own limit. */
  runTimeoutMs: number;
  signal: AbortSignal;
  connectTimeoutMs?: number;
  /** Tests pass a lookup; production resolves with the system resolver. */
  checkRepoUrl?: (url: string) => Promise<unknown>;
}

export interface McpConnection {
  tools: StructuredToolInterface[];
  /** Servers left out of the run, with the reason (for the run's reply). */
  failures: Array<{ name: string; reason: string }>;
  connected: string[];
  close(): Promise<void>;
}

async function transportFor(entry: McpServerEntry, o: McpConnectOptions): Promise<Transport> {
  const c = entry.config;
  if ("command" in c) {
    // The server's command line is run by the sandbox's shell, inside the sandbox, as any `execute` is.
    return new SandboxStdioTransport(o.sandbox, shellJoin([c.command, ...c.args]), { env: c.env, timeoutMs: o.runTimeoutMs, signal: o.signal });
  }
  // A repository's server is reached from the worker: only public addresses (no loopback, metadata, LAN).
  if (entry.origin === "repo") await (o.checkRepoUrl ?? ((u: string) => resolvePublicUrl(u)))(c.url);
  const headers = resolveHeaders(entry, c.headers, o.secrets);
  const url = new URL(c.url);
  return c.transport === "sse" ? new SSEClientTransport(url, { requestInit: { headers } }) : new StreamableHTTPClientTransport(url, { requestInit: { headers } });
}

async function connectOne(entry: McpServerEntry, o: McpConnectOptions): Promise<{ client: Client; tools: StructuredToolInterface[] }> {
  const transport = await transportFor(entry, o);
  const client = new Client({ name: "open-swe", version: "1" });
  const timeoutMs = o.connectTimeoutMs ?? MCP_CONNECT_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not start and list its tools within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
  });
  try {
    return await Promise.race([
      (async () => {
        await client.connect(transport, { timeout: timeoutMs });
        const tools = await loadMcpTools(entry.name, client, { prefixToolNameWithServerName: true, additionalToolNamePrefix: "mcp", throwOnLoadError: true });
        return { client, tools: tools as StructuredToolInterface[] };
      })(),
      timeout,
    ]);
  } catch (err) {
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
    const stderr = transport instanceof SandboxStdioTransport && transport.stderr.trim() ? ` (stderr: ${transport.stderr.trim().split("\n").slice(-3).join(" / ")})` : "";
    throw new Error(`${errorMessage(err)}${stderr}`);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Connects the run's MCP servers side by side, each within 10 s; one that fails is left out with its
 * reason and the run goes on. `close()` ends every client (and so every stdio process in the sandbox).
 */
export async function connectMcpServers(entries: readonly McpServerEntry[], o: McpConnectOptions): Promise<McpConnection> {
  const results = await Promise.allSettled(entries.map((e) => connectOne(e, o)));
  const clients: Client[] = [];
  const tools: StructuredToolInterface[] = [];
  const failures: McpConnection["failures"] = [];
  const connected: string[] = [];
  results.forEach((r, i) => {
    const name = entries[i]!.name;
    if (r.status === "fulfilled") {
      clients.push(r.value.client);
      tools.push(...r.value.tools);
      connected.push(name);
    } else failures.push({ name, reason: errorMessage(r.reason) });
  });
  return { tools, failures, connected, close: async () => void (await Promise.allSettled(clients.map((c) => c.close()))) };
}

/** The run reply's note for servers left out. */
export function mcpFailureNote(failures: McpConnection["failures"]): string | null {
  if (failures.length === 0) return null;
  return `MCP server${failures.length === 1 ? "" : "s"} left out of this run: ${failures.map((f) => `\`${f.name}\` (${f.reason})`).join("; ")}.`;
}
