import { AIMessage, ToolMessage, type BaseMessage, type UsageMetadata } from "@langchain/core/messages";
import { createMiddleware, tool } from "langchain";
import { z } from "zod";
import { currentRunMessages } from "../current-run-messages.js";
import { isModelCallLimitMessage } from "./model-call-limit.js";
import { isCircuitBreakerMessage } from "./sandbox-circuit-breaker.js";

export const NO_OP_TOOL = "no_op";
export const CONFIRMING_COMPLETION_TOOL = "confirming_completion";

export interface EnsureNoEmptyMessageDeps {
  /** Tools whose success means the user got a reply (e.g. `github_comment`, `slack_thread_reply`). */
  replyTools: readonly string[];
  /** Nudges in a row before the run is allowed to end anyway. */
  maxNudges?: number;
}

const NUDGE = [
  "You ended your turn without calling a tool, and the user has not heard from you: text you write outside the reply tool is not delivered.",
  "Continue the task. When it is done (or if it needs no code change), reply to the user with the reply tool and then call confirming_completion.",
].join(" ");

export const noOpTool = tool(async () => NUDGE, {
  name: NO_OP_TOOL,
  description: "Does nothing. Inserted by the harness when a turn ended without a tool call; never call it yourself.",
  schema: z.object({}),
});

export const confirmingCompletionTool = tool(async ({ summary }) => `Completion confirmed: ${summary}`, {
  name: CONFIRMING_COMPLETION_TOOL,
  description: "Call once the task is fully done (pushed and replied, or replied when no change was needed), with a one-line summary. Ends the run.",
  schema: z.object({ summary: z.string().describe("One line: what was done") }),
  // The model said it is done: end the run after this call instead of asking the model again.
  returnDirect: true,
});

function succeeded(messages: readonly BaseMessage[], names: readonly string[]): boolean {
  return messages.some((m) => ToolMessage.isInstance(m) && m.status !== "error" && m.name !== undefined && names.includes(m.name));
}

function trailingNudges(messages: readonly BaseMessage[]): number {
  let count = 0;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i];
    if (ToolMessage.isInstance(m)) {
      if (m.name === NO_OP_TOOL) count += 1;
      continue;
    }
    if (AIMessage.isInstance(m) && (m.tool_calls ?? []).every((tc) => tc.name === NO_OP_TOOL)) continue;
    break;
  }
  return count;
}

/**
 * Whether the run may end: it has replied or confirmed completion, in this run. A push is not required:
 * a run that only answers a question replies without a PR.
 */
export function workIsDone(messages: readonly BaseMessage[], deps: EnsureNoEmptyMessageDeps): boolean {
  const run = currentRunMessages(messages);
  return succeeded(run, [CONFIRMING_COMPLETION_TOOL]) || succeeded(run, deps.replyTools);
}

const isEmpty = (m: AIMessage) => m.content === "" || (Array.isArray(m.content) && m.content.length === 0);

function withCall(last: AIMessage, call: { name: string; args: Record<string, unknown>; id: string }): AIMessage {
  const replaced = new AIMessage({
    content: isEmpty(last) ? "(no message)" : last.content,
    tool_calls: [{ name: call.name, args: call.args, id: call.id, type: "tool_call" }],
    ...(last.id ? { id: last.id } : {}),
    additional_kwargs: last.additional_kwargs,
    response_metadata: last.response_metadata,
  });
  // The model's usage stays on the turn that replaced it: the run record counts it.
  const usage = usageOf(last);
  if (usage) (replaced as unknown as { usage_metadata?: UsageMetadata }).usage_metadata = usage;
  return replaced;
}

const usageOf = (m: AIMessage) => (m as unknown as { usage_metadata?: UsageMetadata }).usage_metadata;

/**
 * When the model ends a turn without a tool call (seed 002's `ensure_no_empty_msg`):
 * - it has neither replied nor confirmed completion → the message gets a synthetic `no_op` call, and
 *   the run goes on (up to `maxNudges` in a row);
 * - it has replied but said nothing this turn → a synthetic `confirming_completion` call ends the run,
 *   so no empty assistant message is left in the thread for a provider to reject;
 * - it has replied or confirmed and wrote text → the run ends as it is.
 */
export function ensureNoEmptyMessageMiddleware(deps: EnsureNoEmptyMessageDeps) {
  const maxNudges = deps.maxNudges ?? 3;
  return createMiddleware({
    name: "EnsureNoEmptyMessageMiddleware",
    tools: [noOpTool, confirmingCompletionTool],
    // Inside the model's node: the rewritten turn is what the node writes, so no node (and no checkpoint) of
    // its own at every step. It sees what the layers inside it made of the call (the sandbox breaker's
    // turn); the outer ones (call limit, budget) answer without calling it, and the run ends on their turn.
    wrapModelCall: async (request, handler) => {
      const result = await handler(request);
      if (!AIMessage.isInstance(result)) return result;
      const calls = result.tool_calls ?? [];
      if (calls.length > 0 || isModelCallLimitMessage(result) || isCircuitBreakerMessage(result)) return result;
      // The conversation before this turn says the same as with it (a turn without calls is neither a
      // tool's success nor a nudge); the ids count the turn in, as the conversation will.
      const before = request.state.messages;
      const at = before.length + 1;
      if (workIsDone(before, deps)) {
        if (!isEmpty(result)) return result;
        return withCall(result, { name: CONFIRMING_COMPLETION_TOOL, args: { summary: "replied to the user" }, id: `${CONFIRMING_COMPLETION_TOOL}_${at}` });
      }
      if (trailingNudges(before) >= maxNudges) return result;
      return withCall(result, { name: NO_OP_TOOL, args: {}, id: `${NO_OP_TOOL}_${at}` });
    },
  });
}
