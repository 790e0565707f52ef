import { z } from "zod";

export const ToolPolicy = z.enum(["always_allow", "ask", "deny"]);
export type ToolPolicy = z.infer<typeof ToolPolicy>;

/** A tool name (`execute`, `mcp__docs__search`) or a prefix pattern ending in `*` (`mcp__docs__*`). */
export const ToolPattern = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.-]+\*?$|^\*$/, "a tool name, or a prefix ending in * (e.g. mcp__docs__*)");

export const ToolPolicies = z.record(ToolPattern, ToolPolicy);
export type ToolPolicies = z.infer<typeof ToolPolicies>;

/** deepagents' own tools (file tools derived from the sandbox backend, `execute`, `task`, todos). */
export const BUILTIN_TOOL_NAMES = ["ls", "read_file", "write_file", "edit_file", "glob", "grep", "execute", "task", "write_todos"] as const;

export const MCP_TOOL_PREFIX = "mcp__";

export interface PolicySources {
  /** `.github/open-swe.yml` `agent.tools`. */
  repo?: ToolPolicies | undefined;
  /** The team default (`open-swe settings tool-policy set`). */
  team?: ToolPolicies | undefined;
}

export interface ResolvedPolicy {
  policy: ToolPolicy;
  source: "repo" | "team" | "builtin";
}

/** The entry of one level that names `tool`: the exact name wins over patterns, a longer prefix over a shorter. */
function matchLevel(tool: string, level: ToolPolicies | undefined): ToolPolicy | undefined {
  if (!level) return undefined;
  if (Object.hasOwn(level, tool)) return level[tool];
  let best: { length: number; policy: ToolPolicy } | undefined;
  for (const [pattern, policy] of Object.entries(level)) {
    if (!pattern.endsWith("*")) continue;
    const prefix = pattern.slice(0, -1);
    if (tool.startsWith(prefix) && (!best || prefix.length > best.length)) best = { length: prefix.length, policy };
  }
  return best?.policy;
}

/** Built-in default: our tools, deepagents' tools and pushes are allowed; a connected server's tools ask. */
export function builtinPolicy(tool: string): ToolPolicy {
  return tool.startsWith(MCP_TOOL_PREFIX) ? "ask" : "always_allow";
}

/** Pure: repo config › team default › built-in. */
export function resolveToolPolicy(tool: string, sources: PolicySources): ResolvedPolicy {
  const repo = matchLevel(tool, sources.repo);
  if (repo) return { policy: repo, source: "repo" };
  const team = matchLevel(tool, sources.team);
  if (team) return { policy: team, source: "team" };
  return { policy: builtinPolicy(tool), source: "builtin" };
}

export interface RunToolPolicies {
  /** Removed from the run: the model never sees them, a call is refused. */
  denied: string[];
  /** Each call pauses the run until a person approves or denies it. */
  ask: string[];
}

export function resolveRunToolPolicies(tools: readonly string[], sources: PolicySources): RunToolPolicies {
  const denied: string[] = [];
  const ask: string[] = [];
  for (const tool of [...new Set(tools)].sort()) {
    const { policy } = resolveToolPolicy(tool, sources);
    if (policy === "deny") denied.push(tool);
    else if (policy === "ask") ask.push(tool);
  }
  return { denied, ask };
}

/** What the system prompt says about the run's policies; empty when every tool is allowed. */
export function toolPolicyNotice(p: RunToolPolicies): string {
  const lines: string[] = [];
  if (p.denied.length > 0)
    lines.push(`These tools are disabled for this repository by policy and are not available to you: ${p.denied.map((t) => `\`${t}\``).join(", ")}. Do not try to work around them.`);
  if (p.ask.length > 0)
    lines.push(
      `These tools need a person's approval before each call: ${p.ask.map((t) => `\`${t}\``).join(", ")}. The run pauses until someone decides; if a call is denied, the tool result says so — continue without it.`,
    );
  return lines.length > 0 ? `## Tool policies\n\n${lines.join("\n\n")}` : "";
}
