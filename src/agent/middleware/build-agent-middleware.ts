import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { AgentMiddleware } from "langchain";
import type { Logger } from "../../logger.js";
import { ensureNoEmptyMessageMiddleware } from "./ensure-no-empty-message.js";
import { followUpQueueMiddleware } from "./follow-up-queue.js";
import { idempotentToolCallsMiddleware, type IdempotentToolCallsDeps } from "./idempotent-tool-calls.js";
import { modelCallLimit, subagentCallLimit } from "./model-call-limit.js";
import { subagentMeterMiddleware, type RunMeter } from "../run-meter.js";
import { modelFallbackMiddleware } from "./model-fallback.js";
import { runBudgetMiddleware } from "./run-budget.js";
import { subagentLimitsMiddleware } from "../subagents/subagent-limits.js";
import { sandboxCircuitBreakerMiddleware, type SandboxCircuitBreakerDeps } from "./sandbox-circuit-breaker.js";
import { sanitizeThinkingBlocksMiddleware } from "./sanitize-thinking-blocks.js";
import { sanitizeToolInputsMiddleware } from "./sanitize-tool-inputs.js";
import { scopedAgentsMdMiddleware } from "./scoped-agents-md.js";
import { startPriorityMiddleware, type StartPriorityDeps } from "./start-priority.js";
import { sourceStatusMiddleware, type AgentStatus } from "./source-status.js";
import { stepLimitNoticeMiddleware } from "./step-limit-notice.js";
import { toolErrorsMiddleware } from "./tool-errors.js";
import { DEFAULT_REPLY_TOOLS, SIDE_EFFECT_TOOLS } from "../side-effect-tools.js";

export interface AgentMiddlewareDeps {
  /** Model calls per run before it ends gracefully. */
  modelCallLimit: number;
  workspaceRoot: string;
  readWorkspaceFile: (absolutePath: string) => Promise<string | undefined>;
  drainFollowUps: (threadId: string) => Promise<string[]>;
  /** Fallback when the run config has no thread id. */
  threadId?: string;
  onStatus?: (status: AgentStatus) => Promise<void> | void;
  notifyStepLimit: (text: string) => Promise<void>;
  replyTools?: readonly string[];
  circuitBreaker?: SandboxCircuitBreakerDeps;
  fallbackModel?: BaseChatModel;
  /** The fallback's id, so its turns are priced at its rate. */
  fallbackModelId?: string;
  onFallback?: (err: unknown) => void;
  /** The run's shared accounting; the `task` subagent's stack (`buildSubagentMiddleware`) needs it. */
  meter?: RunMeter;
  /** Remember side-effecting tool results so a resumed run does not repeat them (tools default to SIDE_EFFECT_TOOLS). */
  idempotency?: Omit<IdempotentToolCallsDeps, "tools"> & { tools?: readonly string[] };
  logger?: Logger;
  /** Runs starting on this worker go first (src/threads/start-priority.ts); unset: never yields. */
  startPriority?: StartPriorityDeps;
  /** USD the run may spend, priced at `budgetModelId`'s rates; unset: no budget. */
  budgetUsd?: number;
  /** Tokens the run may use (input and output, every model of the run); unset: no token cap. */
  budgetTokens?: number;
  budgetModelId?: string;
}

/**
 * The agent's middleware stack in the order the issue fixes (seed 002): the first entry wraps all
 * others. Idempotent tool calls (not in the seed) sit innermost around the tools, after the breaker.
 * Build it per run — the AGENTS.md and circuit-breaker middleware keep per-run memory.
 */
export function buildAgentMiddleware(deps: AgentMiddlewareDeps): AgentMiddleware[] {
  const logger = deps.logger ? { logger: deps.logger } : {};
  const stack: Array<AgentMiddleware | undefined> = [
    deps.startPriority ? startPriorityMiddleware(deps.startPriority) : undefined,
    sanitizeToolInputsMiddleware(),
    modelCallLimit(deps.modelCallLimit, deps.meter),
    deps.budgetUsd !== undefined || deps.budgetTokens !== undefined
      ? runBudgetMiddleware({ budgetUsd: deps.budgetUsd, budgetTokens: deps.budgetTokens, modelId: deps.budgetModelId ?? "", ...(deps.meter ? { meter: deps.meter } : {}) })
      : undefined,
    toolErrorsMiddleware(),
    scopedAgentsMdMiddleware({ workspaceRoot: deps.workspaceRoot, readFile: deps.readWorkspaceFile }),
    followUpQueueMiddleware({ drainFollowUps: deps.drainFollowUps, ...(deps.threadId ? { threadId: deps.threadId } : {}), ...logger }),
    deps.onStatus ? sourceStatusMiddleware({ onStatus: deps.onStatus, ...logger }) : undefined,
    ensureNoEmptyMessageMiddleware({ replyTools: deps.replyTools ?? DEFAULT_REPLY_TOOLS }),
    stepLimitNoticeMiddleware({ notify: deps.notifyStepLimit, ...logger }),
    sandboxCircuitBreakerMiddleware(deps.circuitBreaker ?? {}),
    deps.idempotency ? idempotentToolCallsMiddleware({ ...deps.idempotency, tools: deps.idempotency.tools ?? SIDE_EFFECT_TOOLS }) : undefined,
    deps.fallbackModel ? modelFallbackMiddleware(deps.fallbackModel, deps.onFallback, deps.fallbackModelId) : undefined,
    sanitizeThinkingBlocksMiddleware(),
  ];
  return stack.filter((m): m is AgentMiddleware => m !== undefined);
}

/**
 * The `task` subagent's stack: the parent's rules — sanitised inputs, the run's one model-call budget,
 * tool errors, the sandbox circuit breaker, idempotent side effects, the fallback model, thinking-block
 * hygiene — and its turns and tool calls recorded on the run's meter. Not the main-run-only parts:
 * follow-up draining, status, the no-empty-message nudge, the step-limit notice. (The verdict guard is
 * added by `createOpenSweAgent` for both.)
 */
export function buildSubagentMiddleware(deps: AgentMiddlewareDeps & { meter: RunMeter }, agent?: string): AgentMiddleware[] {
  const stack: Array<AgentMiddleware | undefined> = [
    sanitizeToolInputsMiddleware(),
    subagentCallLimit(deps.modelCallLimit, deps.meter),
    subagentMeterMiddleware(deps.meter, agent),
    deps.budgetUsd !== undefined
      ? subagentLimitsMiddleware({ name: "SubagentRunBudgetMiddleware", agent: agent ?? "general-purpose", modelId: deps.budgetModelId ?? "", meter: deps.meter, runBudgetUsd: deps.budgetUsd })
      : undefined,
    toolErrorsMiddleware(),
    sandboxCircuitBreakerMiddleware(deps.circuitBreaker ?? {}),
    deps.idempotency ? idempotentToolCallsMiddleware({ ...deps.idempotency, tools: deps.idempotency.tools ?? SIDE_EFFECT_TOOLS }) : undefined,
    deps.fallbackModel ? modelFallbackMiddleware(deps.fallbackModel, deps.onFallback, deps.fallbackModelId) : undefined,
    sanitizeThinkingBlocksMiddleware(),
  ];
  return stack.filter((m): m is AgentMiddleware => m !== undefined);
}
