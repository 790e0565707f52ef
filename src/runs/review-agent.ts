import { ToolMessage, type BaseMessage, type HumanMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { GENERAL_PURPOSE_SUBAGENT, createDeepAgent, type CreateDeepAgentParams } from "deepagents";
import { createMiddleware, type AgentMiddleware } from "langchain";
import { modelCallLimit } from "../agent/middleware/model-call-limit.js";
import { modelFallbackMiddleware } from "../agent/middleware/model-fallback.js";
import { sandboxCircuitBreakerMiddleware } from "../agent/middleware/sandbox-circuit-breaker.js";
import { sanitizeThinkingBlocksMiddleware } from "../agent/middleware/sanitize-thinking-blocks.js";
import { sanitizeToolInputsMiddleware } from "../agent/middleware/sanitize-tool-inputs.js";
import { toolErrorsMiddleware } from "../agent/middleware/tool-errors.js";
import { verdictGuardMiddleware } from "../agent/guards/verdict-guard.js";
import { SandboxBackend } from "../sandbox/deepagents-backend.js";
import type { Sandbox } from "../sandbox/types.js";

/** deepagents' file tools that change files: the reviewer never sees them. */
export const WRITE_FILE_TOOLS = ["write_file", "edit_file", "delete"] as const;

/** Hides the built-in writing file tools from the model and refuses them if called anyway. */
export function readOnlyFilesMiddleware() {
  const blocked = new Set<string>(WRITE_FILE_TOOLS);
  return createMiddleware({
    name: "ReadOnlyFilesMiddleware",
    wrapModelCall: (request, handler) => handler({ ...request, tools: request.tools.filter((t) => !blocked.has(String((t as { name?: unknown }).name))) }),
    wrapToolCall: async (request, handler) => {
      if (!blocked.has(request.toolCall.name)) return handler(request);
      return new ToolMessage({
        content: `Error: ${request.toolCall.name} is not available: the reviewer is read-only.`,
        tool_call_id: request.toolCall.id ?? "",
        name: request.toolCall.name,
        status: "error",
      });
    },
  });
}

/**
 * The reviewer's stack: the coding agent's safety subset (input sanitizing, call cap, tool errors,
 * sandbox breaker, fallback, thinking-block cleanup) plus the verdict guard and read-only files.
 * No follow-up draining or empty-message nudging: a review is one request, answered once.
 */
export function reviewerMiddleware(o: { modelCallLimit: number; fallbackModel?: BaseChatModel | undefined }): AgentMiddleware[] {
  const stack: Array<AgentMiddleware | undefined> = [
    sanitizeToolInputsMiddleware(),
    modelCallLimit(o.modelCallLimit),
    toolErrorsMiddleware(),
    verdictGuardMiddleware(),
    readOnlyFilesMiddleware(),
    sandboxCircuitBreakerMiddleware(),
    o.fallbackModel ? modelFallbackMiddleware(o.fallbackModel) : undefined,
    sanitizeThinkingBlocksMiddleware(),
  ];
  return stack.filter((m): m is AgentMiddleware => m !== undefined);
}

export interface InvokeReviewerOptions {
  model: BaseChatModel;
  fallbackModel?: BaseChatModel | undefined;
  sandbox: Sandbox;
  systemPrompt: string;
  /** `createReviewerTools(session)` + the SSRF-guarded web tools; nothing that writes to GitHub. */
  tools: StructuredToolInterface[];
  message: HumanMessage;
  threadId: string;
  modelCallLimit: number;
  execTimeoutMs: number;
  signal: AbortSignal;
}

/** One reviewer run: deepagents over the read-only sandbox; throws what the run threw. */
export async function invokeReviewer(o: InvokeReviewerOptions): Promise<BaseMessage[]> {
  const subagentMiddleware = [sanitizeToolInputsMiddleware(), toolErrorsMiddleware(), verdictGuardMiddleware(), readOnlyFilesMiddleware(), sanitizeThinkingBlocksMiddleware()];
  const agent = createDeepAgent({
    model: o.model,
    systemPrompt: o.systemPrompt,
    tools: o.tools as CreateDeepAgentParams["tools"] & object,
    middleware: reviewerMiddleware({ modelCallLimit: o.modelCallLimit, fallbackModel: o.fallbackModel }),
    subagents: [{ ...GENERAL_PURPOSE_SUBAGENT, tools: [] as never, middleware: subagentMiddleware }],
    backend: new SandboxBackend(o.sandbox, { timeoutMs: o.execTimeoutMs, signal: o.signal }),
  });
  const result = await agent.invoke({ messages: [o.message] }, { configurable: { thread_id: o.threadId }, recursionLimit: 10_000, signal: o.signal });
  return result.messages as BaseMessage[];
}
