import type { StructuredToolInterface } from "@langchain/core/tools";
import { loadMcpTools } from "@langchain/mcp-adapters";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { STATUS_CODES } from "node:http";
import { HttpGuardError, resolvePublicUrl, type LookupAll } from "../net/http-guard.js";
import { pinnedFetch } from "../net/pinned-fetch.js";
import { errorMessage } from "../errors.js";
import { shellJoin } from "../shared/shell-quote.js";
import { resolveHeaders, type McpServerEntry } from "../config/mcp-config.js";
import { SandboxStdioTransport, type StdioHost } from "./sandbox-stdio-transport.js";
import type { FetchLike } from "../net/pinned-fetch.js";
import type { Logger } from "../logger.js";
import { cappedFetch } from "./capped-fetch.js";
import { MCP_ANSWER_LIMITS, McpAnswerRefused, type McpAnswerLimits } from "./mcp-answer-limits.js";

export const MCP_CONNECT_TIMEOUT_MS = 10_000;

export interface McpConnectOptions {
  /** The run's sandbox: stdio servers run inside it. */
  sandbox: StdioHost;
  /** Named secrets for team servers' headers (`MCP_SECRET_<NAME>`). */
  secrets: Readonly<Record<string, string>>;
  /** How long a stdio server may live: the run's own limit. */
  runTimeoutMs: number;
  signal: AbortSignal;
  connectTimeoutMs?: number;
  /** How a repository server's name is resolved for its check; the transport connects only there. Tests inject it. */
  lookup?: LookupAll;
  /** This machine's addresses (refused like loopback); tests inject them. */
  ownAddresses?: () => ReadonlySet<string>;
  /** How large and how deep one message of a server may be (`MCP_ANSWER_LIMITS`); tests lower them. */
  limits?: McpAnswerLimits;
  /** Where a refused answer is logged, with the server's name (the run's logger). */
  log?: Pick<Logger, "warn">;
}

export interface McpConnection {
  tools: StructuredToolInterface[];
  /** Servers left out of the run, with the reason (for the run's reply). */
  failures: Array<{ name: string; reason: string }>;
  connected: string[];
  close(): Promise<void>;
}

/** What the remote transport saw: the last HTTP status, for a failure reason that never quotes the server. */
interface Seen {
  status?: number;
  /** The code of the last connection failure (ECONNREFUSED, …). */
  netError?: string;
  /** An answer refused for its size or nesting. */
  refusal?: McpAnswerRefused;
  /** Told of the first refusal: the connection is closed (a refused SSE stream would otherwise leave its request waiting). */
  onRefusal?: (err: McpAnswerRefused) => void;
}

async function transportFor(entry: McpServerEntry, o: McpConnectOptions, seen: Seen): Promise<Transport> {
  const c = entry.config;
  const limits = o.limits ?? MCP_ANSWER_LIMITS;
  const onRefused = (err: McpAnswerRefused): void => {
    if (seen.refusal) return;
    seen.refusal = err;
    seen.onRefusal?.(err);
    o.log?.warn({ server: entry.name, code: err.code, maxBytes: limits.maxBytes, maxDepth: limits.maxDepth }, "MCP server answer refused");
  };
  if ("command" in c) {
    // The server's command line is run by the sandbox's shell, inside the sandbox, as any `execute` is.
    return new SandboxStdioTransport(o.sandbox, shellJoin([c.command, ...c.args]), {
      env: c.env,
      timeoutMs: o.runTimeoutMs,
      signal: o.signal,
      server: entry.name,
      limits,
      onRefused,
    });
  }
  const headers = resolveHeaders(entry, c.headers, o.secrets);
  const url = new URL(c.url);
  // A repository's server is reached from the worker: only public addresses (no loopback, metadata, LAN),
  // and only the addresses checked — the transport's requests never resolve the name again (rebinding).
  let base: FetchLike = globalThis.fetch;
  if (entry.origin === "repo") {
    const checked = await resolvePublicUrl(c.url, o.lookup, o.ownAddresses);
    base = pinnedFetch(checked.url, checked.addresses);
  }
  // Every answer is capped while it streams and checked for nesting before the SDK parses it.
  base = cappedFetch(base, entry.name, limits, onRefused);
  const fetch: FetchLike = async (input, init) => {
    try {
      const res = await base(input, init);
      seen.status = res.status;
      return res;
    } catch (err) {
      const code = networkCode(err);
      if (code) seen.netError = code;
      throw err;
    }
  };
  return c.transport === "sse" ? new SSEClientTransport(url, { requestInit: { headers }, fetch }) : new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch });
}

/**
 * A remote server's failure in our words: its HTTP status, or what went wrong connecting — never the
 * text of its answer (a server's body is the server's to write, not the run's reply to quote).
 */
export function remoteFailureReason(err: unknown, seen: Seen): string {
  if (err instanceof HttpGuardError) return err.message;
  if (seen.refusal) return seen.refusal.message;
  if (seen.status !== undefined && (seen.status < 200 || seen.status > 299)) return `HTTP ${seen.status} (${STATUS_CODES[seen.status] ?? "unknown status"})`;
  const code = seen.netError ?? networkCode(err);
  if (code) return `cannot connect (${code})`;
  if (err instanceof Error && /^did not start and list its tools within/.test(err.message)) return err.message;
  return "its answer is not a working MCP server (the server's text is not quoted)";
}

function networkCode(err: unknown): string | null {
  for (let e: unknown = err, i = 0; e && i < 5; e = (e as { cause?: unknown }).cause, i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^(?:E[A-Z_]+|UND_ERR_[A-Z_]+)$/.test(code)) return code;
  }
  return null;
}

async function connectOne(entry: McpServerEntry, o: McpConnectOptions): Promise<{ client: Client; tools: StructuredToolInterface[] }> {
  const seen: Seen = {};
  const transport = await transportFor(entry, o, seen);
  const client = new Client({ name: "open-swe", version: "1" });
  const timeoutMs = o.connectTimeoutMs ?? MCP_CONNECT_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not start and list its tools within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
  });
  // A refused answer ends the connection at once, during the connect or any later call.
  const refused = new Promise<never>((_, reject) => {
    seen.onRefusal = (err) => {
      reject(err);
      void client.close().catch(() => undefined);
    };
  });
  refused.catch(() => undefined);
  try {
    return await Promise.race([
      (async () => {
        await client.connect(transport, { timeout: timeoutMs });
        const tools = await loadMcpTools(entry.name, client, { prefixToolNameWithServerName: true, additionalToolNamePrefix: "mcp", throwOnLoadError: true });
        return { client, tools: tools as StructuredToolInterface[] };
      })(),
      timeout,
      refused,
    ]);
  } catch (err) {
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
    if (!(transport instanceof SandboxStdioTransport)) throw new Error(remoteFailureReason(err, seen), { cause: err });
    if (seen.refusal) throw seen.refusal;
    const stderr = transport.stderr.trim() ? ` (stderr: ${transport.stderr.trim().split("\n").slice(-3).join(" / ")})` : "";
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
