import { MCP_TOOL_PREFIX } from "../../config/tool-policy.js";
import { SIDE_EFFECT_TOOLS } from "../side-effect-tools.js";
import type { AgentDefinition, PermissionMode } from "./agent-definition.js";
import { FILE_TOOL_NAMES } from "./load-agents.js";

/** `confirm_risky` asks before these: commands, writes, outward side effects, network and MCP tools. */
const RISKY = ["execute", "write_file", "edit_file", "delete", "http_request", "fetch_url", "web_search"];

/** `sideEffects`: the run's side-effecting tools (the host's and every source's replies and writes). */
export const isRiskyTool = (tool: string, sideEffects: readonly string[] = SIDE_EFFECT_TOOLS): boolean => RISKY.includes(tool) || sideEffects.includes(tool) || tool.startsWith(MCP_TOOL_PREFIX);

/** The tools a file agent has: the ones its file lists, else the file tools. */
export const agentToolNames = (d: Pick<AgentDefinition, "tools">): string[] => [...(d.tools ?? FILE_TOOL_NAMES)];

export interface EffectivePolicy {
  permissionMode: PermissionMode | "inherit";
  /** Tools that pause for a person's approval before each call. */
  ask: string[];
  denied: string[];
  allowed: string[];
}

/**
 * Pure: seed 003's `permission_mode` over the run's policies for one agent — `always_confirm`: every
 * tool asks; `confirm_risky`: commands, writes, side effects, network and MCP tools ask; `never_confirm`
 * (or none): the run's policies as they are. A denied tool stays denied whatever the mode.
 */
export function effectivePolicy(
  mode: PermissionMode | undefined,
  tools: readonly string[],
  run: { readonly denied: readonly string[]; readonly ask: readonly string[] },
  sideEffects: readonly string[] = SIDE_EFFECT_TOOLS,
): EffectivePolicy {
  const denied = new Set(run.denied);
  const runAsk = new Set(run.ask);
  const asks = (t: string) => runAsk.has(t) || mode === "always_confirm" || (mode === "confirm_risky" && isRiskyTool(t, sideEffects));
  const sorted = [...new Set(tools)].sort();
  return {
    permissionMode: mode ?? "inherit",
    denied: sorted.filter((t) => denied.has(t)),
    ask: sorted.filter((t) => !denied.has(t) && asks(t)),
    allowed: sorted.filter((t) => !denied.has(t) && !asks(t)),
  };
}

/** Pure: frontmatter keys parsed but not acted on by this version (reported, never silently accepted). */
export function keysNotActedOn(d: Pick<AgentDefinition, "hooks" | "mcpConfig" | "condenser" | "metadata">): string[] {
  return [
    ...(d.hooks !== undefined ? ["hooks"] : []),
    ...(d.mcpConfig !== undefined ? ["mcp_config"] : []),
    ...(d.condenser.kind !== "default" ? ["condenser"] : []),
    ...Object.keys(d.metadata).sort(),
  ];
}

/** The run reply's note on agents whose files set keys this version does not act on, or undefined. */
export function keysNotActedOnNote(agents: ReadonlyArray<{ definition: AgentDefinition; source: string }>): string | undefined {
  const lines = agents
    .filter((a) => a.source !== "builtin")
    .flatMap(({ definition: d }) => {
      const keys = keysNotActedOn(d);
      return keys.length > 0 ? [`- \`${d.name}\`: ${keys.map((k) => `\`${k}\``).join(", ")}`] : [];
    });
  return lines.length > 0 ? ["Agent file keys that were read but are not acted on in this version:", ...lines].join("\n") : undefined;
}
