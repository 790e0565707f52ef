import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { GENERAL_PURPOSE_SUBAGENT, createDeepAgent, type CreateDeepAgentParams, type SubAgent } from "deepagents";
import type { AgentMiddleware } from "langchain";
import { sanitizeThinkingBlocksMiddleware } from "./middleware/sanitize-thinking-blocks.js";
import { sanitizeToolInputsMiddleware } from "./middleware/sanitize-tool-inputs.js";
import { toolErrorsMiddleware } from "./middleware/tool-errors.js";
import { toolPolicyMiddleware } from "./middleware/tool-policy.js";
import { toolEventsMiddleware } from "./middleware/tool-events.js";
import { todoListWithoutAfterModel } from "./middleware/todo-list.js";
import { installUntracedContext } from "./untraced-context.js";
import { verdictGuardMiddleware } from "./guards/verdict-guard.js";

export interface CreateOpenSweAgentOptions {
  model: BaseChatModel;
  /** Rendered `prompts/agent.md`: repo-stable, so the provider can cache it. */
  systemPrompt: string;
  /** A deepagents backend: our sandbox (a `BaseSandbox`) in production; deepagents' StateBackend when omitted. */
  backend?: CreateDeepAgentParams["backend"];
  /** Curated host-side tools (commit_and_push, open_or_update_pull_request, replies, http, …). */
  tools: StructuredToolInterface[];
  /** `buildAgentMiddleware(deps)`, built for this run. */
  middleware: AgentMiddleware[];
  checkpointer?: BaseCheckpointSaver;
  /** Tools the `task` subagent gets besides the file tools; none by default (it must not push or reply). */
  subagentTools?: StructuredToolInterface[];
  /** `buildSubagentMiddleware(deps)`: the run's rules and accounting for the subagent. */
  subagentMiddleware?: AgentMiddleware[];
  /** Tool policies (`resolveRunToolPolicies`): `denied` are removed, `ask` pause the run before each call. */
  toolPolicies?: { denied: readonly string[]; ask: readonly string[] };
  /** Every tool call that ran (main agent and subagents): name, duration, result. */
  onToolExecuted?: (name: string, durationMs: number, result: unknown) => void;
  /** File-based agents (`buildFileSubagents`); one named `general-purpose` replaces the built-in. */
  fileSubagents?: SubAgent[];
  /** Skill source paths in the backend (deepagents skills), e.g. `/skills/`. */
  skills?: string[];
}

/**
 * The coding agent: deepagents over the thread's sandbox with the todo and `task` tools on.
 *
 * The general-purpose subagent is declared here so it does not inherit the main stack: follow-up
 * draining, the no-empty-message nudge and the step-limit notice belong to the main run only.
 */
export function createOpenSweAgent(options: CreateOpenSweAgentOptions) {
  installUntracedContext();
  // The verdict guard runs in the main agent and in every subagent: `execute` never submits a review verdict.
  // It sits outside the run's stack so nothing can skip it, and sanitises the arguments itself, so it
  // judges the command the sandbox receives (test/agent/verdict-guard-wiring.test.ts cuts this).
  // Policies, like the verdict guard, sit outside the run's stack: main agent and subagents alike.
  const policy = toolPolicyMiddleware(options.toolPolicies?.denied ?? []) as AgentMiddleware;
  const ask = options.toolPolicies?.ask ?? [];
  const events = options.onToolExecuted ? [toolEventsMiddleware(options.onToolExecuted) as AgentMiddleware] : [];
  const subagentMiddleware = [
    policy,
    ...events,
    verdictGuardMiddleware() as AgentMiddleware,
    ...(options.subagentMiddleware ?? [sanitizeToolInputsMiddleware(), toolErrorsMiddleware(), sanitizeThinkingBlocksMiddleware()]),
  ];
  return createDeepAgent({
    model: options.model,
    systemPrompt: options.systemPrompt,
    tools: options.tools as CreateDeepAgentParams["tools"] & object,
    middleware: [todoListWithoutAfterModel(), policy, ...events, verdictGuardMiddleware() as AgentMiddleware, ...options.middleware],
    subagents: [
      ...(options.fileSubagents?.some((a) => a.name === GENERAL_PURPOSE_SUBAGENT.name)
        ? []
        : [{ ...GENERAL_PURPOSE_SUBAGENT, tools: (options.subagentTools ?? []) as never, middleware: subagentMiddleware, ...(options.skills?.length ? { skills: options.skills } : {}) }]),
      // File agents get the same outer rules (policies, tool events, verdict guard) before their own stack.
      ...(options.fileSubagents ?? []).map((a) => ({ ...a, middleware: [policy, ...events, verdictGuardMiddleware() as AgentMiddleware, ...(a.middleware ?? [])] })),
    ],
    ...(options.backend ? { backend: options.backend } : {}),
    ...(options.checkpointer ? { checkpointer: options.checkpointer } : {}),
    ...(options.skills?.length ? { skills: options.skills } : {}),
    // Approve or reject only: an edited call would run arguments nobody but the editor saw.
    ...(ask.length > 0 ? { interruptOn: Object.fromEntries(ask.map((t) => [t, { allowedDecisions: ["approve", "reject"] as ("approve" | "reject")[] }])) } : {}),
  });
}
