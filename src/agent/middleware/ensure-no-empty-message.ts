import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createMiddleware, tool } from "langchain";
import { z } from "zod";
import { isModelCallLimitMessage } from "./model-call-limit.js";

export const NO_OP_TOOL = "no_op";
export const CONFIRMING_COMPLETION_TOOL = "confirming_completion";

export interface EnsureNoEmptyMessageDeps {
  /** Tools whose success means the work is pushed (e.g. `commit_and_push`). */
  pushTools: readonly string[];
  /** Tools whose success means the user got a reply (e.g. `github_comment`, `slack_thread_reply`). */
  replyTools: readonly string[];
  /** Nudges in a row before the run is allowed to end anyway. */
  maxNudges?: number;
}

const NUDGE = [
  "You ended your turn without calling a tool, but the task is not finished: you have not both pushed your work and replied in the source channel.",
  "Continue the task. If it needs no code change, reply to the user with the reply tool and then call confirming_completion.",
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

/** Messages of the current run: from the last user request on (mid-run follow-ups do not start a run). */
export function currentRunMessages(messages: readonly BaseMessage[]): readonly BaseMessage[] {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i];
    if (m && HumanMessage.isInstance(m) && m.additional_kwargs["follow_up"] !== true) return messages.slice(i);
  }
  return messages;
}

/** Whether the run may end: completion confirmed, or pushed and replied, in this run. */
export function workIsDone(messages: readonly BaseMessage[], deps: EnsureNoEmptyMessageDeps): boolean {
  const run = currentRunMessages(messages);
  if (succeeded(run, [CONFIRMING_COMPLETION_TOOL])) return true;
  return succeeded(run, deps.pushTools) && succeeded(run, deps.replyTools);
}

/**
 * When the model ends a turn without a tool call before the work is done, rewrites that message to
 * carry a synthetic `no_op` call, so the run goes on (and no empty assistant message is left for a
 * provider to reject). After `confirming_completion` succeeds, the run ends.
 */
export function ensureNoEmptyMessageMiddleware(deps: EnsureNoEmptyMessageDeps) {
  const maxNudges = deps.maxNudges ?? 3;
  return createMiddleware({
    name: "EnsureNoEmptyMessageMiddleware",
    tools: [noOpTool, confirmingCompletionTool],
    // No jumpTo: a jump would skip the afterModel hooks of earlier middleware (the call counter
    // among them); the agent's router sends the rewritten message to the tools node anyway.
    afterModel: {
      hook: (state) => {
        const last = state.messages.at(-1);
        if (!last || !AIMessage.isInstance(last)) return undefined;
        const calls = last.tool_calls ?? [];
        if (calls.length > 0 || isModelCallLimitMessage(last)) return undefined;
        if (workIsDone(state.messages, deps) || trailingNudges(state.messages) >= maxNudges) return undefined;
        const id = `${NO_OP_TOOL}_${state.messages.length}`;
        const replaced = new AIMessage({
          content: last.content === "" || (Array.isArray(last.content) && last.content.length === 0) ? "(no message)" : last.content,
          tool_calls: [{ name: NO_OP_TOOL, args: {}, id, type: "tool_call" }],
          ...(last.id ? { id: last.id } : {}),
          additional_kwargs: last.additional_kwargs,
          response_metadata: last.response_metadata,
        });
        return { messages: [replaced] };
      },
    },
  });
}
