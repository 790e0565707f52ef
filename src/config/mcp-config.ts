import { z } from "zod";

/** A server's name becomes part of its tools' names (`mcp__<name>__<tool>`): no `__`, no surprises. */
export const McpServerName = z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, "lowercase letters, digits and dashes (it becomes mcp__<name>__<tool>)");

export const McpSecretName = z.string().regex(/^[A-Z0-9_]{1,64}$/, "upper-case letters, digits and _");

/** `${NAME}` in a header value: a named secret (`MCP_SECRET_<NAME>` in the environment). */
export const SECRET_REF = /\$\{([A-Z0-9_]{1,64})\}/g;

export const RemoteMcpServer = z
  .object({
    url: z.url({ protocol: /^https?$/, error: "an http(s) URL" }),
    /** Streamable HTTP (the current transport) or the older SSE one. */
    transport: z.enum(["http", "sse"]).default("http"),
    headers: z.record(z.string().regex(/^[A-Za-z0-9-]+$/, "a header name"), z.string().max(4096)).default({}),
  })
  .strict();

/** Started inside the run's sandbox (never on the host), speaking MCP over its stdin/stdout. */
export const StdioMcpServer = z
  .object({
    command: z.string().min(1).max(1000),
    args: z.array(z.string().max(4096)).max(64).default([]),
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name"), z.string().max(4096)).default({}),
  })
  .strict();

export const McpServerConfig = z.union([RemoteMcpServer, StdioMcpServer]);
export type McpServerConfig = z.infer<typeof McpServerConfig>;

export const McpServers = z.record(McpServerName, McpServerConfig);
export type McpServers = z.infer<typeof McpServers>;

export interface McpServerEntry {
  name: string;
  config: McpServerConfig;
  /** Team servers are trusted (secrets, any address); a repository's are not. */
  origin: "team" | "repo";
}

/** Pure: the run's servers, team first, a repository's entry replacing the team's of the same name. */
export function runMcpServers(team: McpServers, repo: McpServers): McpServerEntry[] {
  const byName = new Map<string, McpServerEntry>();
  for (const [name, config] of Object.entries(team)) byName.set(name, { name, config, origin: "team" });
  for (const [name, config] of Object.entries(repo)) byName.set(name, { name, config, origin: "repo" });
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Pure: header values with `${NAME}` filled from the named secrets. Only team servers may use secrets:
 * a repository could otherwise point a server at itself and read them in the header.
 */
export function resolveHeaders(entry: McpServerEntry, headers: Record<string, string>, secrets: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    out[k] = v.replace(SECRET_REF, (_m, name: string) => {
      if (entry.origin !== "team") throw new Error(`secrets (\${${name}}) may only be used by servers the team configured, not by .github/open-swe.yml`);
      const value = secrets[name];
      if (value === undefined) throw new Error(`secret ${name} is not set (MCP_SECRET_${name}, or open-swe settings mcp-secret set ${name} …)`);
      return value;
    });
  }
  return out;
}
