import type { PromptParts } from "../agent/compose-prompt.js";
import { resolveToolPolicy, type PolicySources } from "../config/tool-policy.js";
import type { AgentJob } from "../queue/schemas.js";

export type RunMode = "task" | "ci_fix" | "conflict_fix" | "follow_up";

/** Pure: the run's mode. A resumed approval keeps the mode of the run that paused (its job's fields). */
export function runMode(data: Pick<AgentJob, "trigger" | "autofixBase" | "autofixHead">): RunMode {
  if (data.autofixBase) return "conflict_fix";
  if (data.trigger === "ci_fix" || data.autofixHead) return "ci_fix";
  if (data.trigger === "follow_up") return "follow_up";
  return "task";
}

const MODE_TEXT: Record<RunMode, string> = {
  task: "## Mode: task\n\nThis run carries out a request: make the change in the workspace, push it with `commit_and_push`, open or update the pull request, and reply where the request came from.",
  ci_fix:
    "## Mode: CI fix\n\nThis run fixes a failing check (or acts on review feedback) on a pull request you opened. Find and fix the cause in the code; never weaken, skip or delete tests to make them pass (such a push is refused). Push the fix to the pull request's branch.",
  conflict_fix:
    "## Mode: conflict fix\n\nThis run resolves a merge conflict between the pull request's branch and its base (available as `origin/<base>`, named in the task): merge the base in, resolve each conflict keeping both sides' intent, run the tests, and push.",
  follow_up: "## Mode: follow-up\n\nThis run continues a thread whose earlier run ended; the new messages follow. Build on the work already on the branch and do not redo it.",
};

/** Pure: a failure reason short enough for the prompt — an HTTP status, or the first line capped; never a server's body. */
export function shortMcpReason(reason: string): string {
  const status = /\b(?:HTTP|status(?: code)?)\D{0,3}([1-5]\d\d)\b/i.exec(reason);
  if (status) return `HTTP ${status[1]}`;
  const line = (reason.split("\n")[0] ?? "").trim();
  return line.length > 100 ? `${line.slice(0, 99)}…` : line || "unknown error";
}

/** Pure: is every tool a server could offer denied by policy (so it is not started)? */
export function serverDeniedByPolicy(name: string, sources: PolicySources): boolean {
  const prefix = `mcp__${name}__`;
  // A name no real tool has stands for "any tool of this server"; entries that name its tools more precisely are checked too.
  const probes = [
    `${prefix}\u0000`,
    ...[sources.repo, sources.team].flatMap((level) =>
      Object.keys(level ?? {})
        .filter((p) => p.startsWith(prefix))
        .map((p) => p.replace(/\*$/, "")),
    ),
  ];
  return probes.every((tool) => resolveToolPolicy(tool, sources).policy === "deny");
}

export interface McpPromptFacts {
  connected: readonly string[];
  failed: ReadonlyArray<{ name: string; reason: string }>;
  denied: readonly string[];
}

/** Pure: the MCP part of the prompt: which servers answered, which failed (short reason), which policy keeps out. */
export function mcpContext(m: McpPromptFacts): string {
  const names = (list: readonly string[]) =>
    [...list]
      .sort()
      .map((n) => `\`${n}\``)
      .join(", ");
  const lines = [
    ...(m.connected.length > 0 ? [`Connected: ${names(m.connected)}; their tools are named \`mcp__<server>__<tool>\`.`] : []),
    ...(m.failed.length > 0
      ? [
          `Failed to start, so not available this run: ${[...m.failed]
            .sort((a, b) => a.name.localeCompare(b.name))
            .map((f) => `\`${f.name}\` (${shortMcpReason(f.reason)})`)
            .join(", ")}.`,
        ]
      : []),
    ...(m.denied.length > 0 ? [`Configured but denied by policy, so not started: ${names(m.denied)}.`] : []),
  ];
  return lines.length > 0 ? `## MCP servers\n\n${lines.join("\n")}` : "";
}

/**
 * Pure: seed 004's parts after the global prompt for one run — mode, the repository's instructions
 * (`.github/open-swe.yml` `agent.instructions`, default branch), the requester's (profile), MCP context.
 */
export function runPromptParts(o: {
  mode: RunMode;
  repoInstructions?: string | undefined;
  /** The repository's PR conventions as prompt lines (`prConventionsText`). */
  prConventions?: string | undefined;
  userInstructions?: string | undefined;
  requester: string;
  mcp: McpPromptFacts;
}): Omit<PromptParts, "global"> {
  const repo = [o.repoInstructions?.trim(), o.prConventions?.trim()].filter((p) => p).join("\n\n");
  return {
    mode: MODE_TEXT[o.mode],
    ...(repo ? { repoInstructions: `## Repository instructions\n\nFrom the repository's \`.github/open-swe.yml\`:\n\n${repo}` } : {}),
    ...(o.userInstructions?.trim() ? { userInstructions: `## Instructions from @${o.requester}\n\nFrom their profile; they apply to their runs:\n\n${o.userInstructions.trim()}` } : {}),
    context: [mcpContext(o.mcp)].filter((p) => p !== ""),
  };
}
