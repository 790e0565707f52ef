import { ToolMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { SubAgent } from "deepagents";
import { createMiddleware, type AgentMiddleware } from "langchain";
import type { RunMeter } from "../run-meter.js";
import { FILE_TOOL_NAMES } from "./load-agents.js";
import type { ResolvedAgent } from "./resolve-agents.js";
import { subagentLimitsMiddleware } from "./subagent-limits.js";
import { agentToolNames, effectivePolicy } from "./permission-policy.js";
import type { RunToolPolicies } from "../../config/tool-policy.js";

/** Hides tools the agent's file does not list from its model and refuses a call to one. */
export function toolAllowlistMiddleware(excluded: ReadonlySet<string>) {
  return createMiddleware({
    name: "SubagentToolAllowlistMiddleware",
    wrapModelCall: (request, handler) => handler({ ...request, tools: (request.tools ?? []).filter((t) => !("name" in t) || !excluded.has(String(t.name))) }),
    wrapToolCall: (request, handler) => {
      const { name, id } = request.toolCall;
      if (!excluded.has(name)) return handler(request);
      return new ToolMessage({ content: `Error: ${name} is not one of this agent's tools.`, tool_call_id: id ?? "", name, status: "error" });
    },
  });
}

export interface BuildFileSubagentsOptions {
  agents: readonly ResolvedAgent[];
  /** The run's system prompt: a file agent's body is appended to it (seed 003). */
  parentSystemPrompt: string;
  /** The run's host-side tools; an agent gets the ones its file lists. */
  tools: readonly StructuredToolInterface[];
  /** The run's subagent stack for one agent (`buildSubagentMiddleware(deps, name)`). */
  middlewareFor: (agent: string) => AgentMiddleware[];
  meter: RunMeter;
  runModelId: string;
  /** Models of agents that name one (absent: the run's model). */
  models?: ReadonlyMap<string, BaseChatModel>;
  /** Where a skill is served from in the agent's file system (deepagents skill source path). */
  skillPath?: (skill: string) => string | undefined;
  /** The run's tool policies: an agent's `permission_mode` asks before more of its tools, never fewer. */
  runPolicies?: RunToolPolicies;
  /** The run's side-effecting tools, which `confirm_risky` asks before (default: the host's). */
  sideEffectTools?: readonly string[];
}

/** The resolved agents as deepagents subagents: prompt, tools, model, skills and limits from their files. */
export function buildFileSubagents(o: BuildFileSubagentsOptions): SubAgent[] {
  return o.agents.map(({ definition: d }) => {
    const listed = d.tools ? new Set(d.tools) : undefined;
    const excluded = new Set(listed ? FILE_TOOL_NAMES.filter((t) => !listed.has(t)) : []);
    const model = d.model === "inherit" ? undefined : o.models?.get(d.model);
    const limits = subagentLimitsMiddleware({
      agent: d.name,
      modelId: model ? d.model : o.runModelId,
      meter: o.meter,
      ...(d.maxIterationPerRun !== undefined ? { maxIterationPerRun: d.maxIterationPerRun } : {}),
      ...(d.maxBudgetPerRun !== undefined ? { maxBudgetPerRun: d.maxBudgetPerRun } : {}),
    });
    const skills = d.skills.map((s) => o.skillPath?.(s)).filter((p): p is string => p !== undefined);
    // permission_mode (seed 003): its own approval list; without one, the run's (deepagents' default).
    const ask = d.permissionMode ? effectivePolicy(d.permissionMode, agentToolNames(d), o.runPolicies ?? { denied: [], ask: [] }, o.sideEffectTools).ask : undefined;
    const spec: SubAgent = {
      name: d.name,
      description: d.description || d.name,
      systemPrompt: [o.parentSystemPrompt, d.prompt].filter(Boolean).join("\n\n"),
      tools: (listed ? o.tools.filter((t) => listed.has(t.name)) : []) as never,
      middleware: [limits as AgentMiddleware, ...(excluded.size > 0 ? [toolAllowlistMiddleware(excluded) as AgentMiddleware] : []), ...o.middlewareFor(d.name)],
      ...(model ? { model } : {}),
      ...(skills.length > 0 ? { skills } : {}),
      ...(ask && ask.length > 0 ? { interruptOn: Object.fromEntries(ask.map((t) => [t, { allowedDecisions: ["approve", "reject"] as ("approve" | "reject")[] }])) } : {}),
    };
    return spec;
  });
}
