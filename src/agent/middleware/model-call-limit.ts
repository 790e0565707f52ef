import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { currentRunMessages } from "../current-run-messages.js";

export const MODEL_CALL_LIMIT_MARKER = "Model call limit reached";

export function isModelCallLimitMessage(message: BaseMessage | undefined): boolean {
  return message !== undefined && AIMessage.isInstance(message) && message.response_metadata["model_call_limit"] === true;
}

/**
 * Caps model calls per run; at the cap the model is not called and the run ends on an AI message.
 *
 * Not langchain's `modelCallLimitMiddleware`: it ends by jumping from beforeModel straight to END,
 * which skips every afterAgent hook — the step-limit notice among them. Answering in place of the
 * model leaves the graph on its normal exit path.
 */
const limitMessage = (runLimit: number) =>
  new AIMessage({
    content: `${MODEL_CALL_LIMIT_MARKER}: this run made ${runLimit} model calls, its limit.`,
    response_metadata: { model_call_limit: true },
  });

/** What the main agent and its subagents share: the main agent's count and the subagents' calls. */
export interface CallBudget {
  parentCalls: number;
  readonly calls: number;
}

/** Model calls of the main agent in this run: its turns since the run's request (a turn a limit answered counts as the call it stands for). */
function callsThisRun(messages: readonly BaseMessage[]): number {
  let n = 0;
  for (const m of currentRunMessages(messages)) if (AIMessage.isInstance(m)) n += 1;
  return n;
}

/**
 * The count is read off the conversation, not kept in the graph's state: no hook before the run and none
 * after each call, so no graph node (and no checkpoint) of its own; a resumed run counts the same turns.
 */
export function modelCallLimit(runLimit: number, budget?: CallBudget) {
  return createMiddleware({
    name: "ModelCallLimitMiddleware",
    wrapModelCall: async (request, handler) => {
      const own = callsThisRun(request.state.messages);
      // The subagents' calls count against the same limit.
      const used = budget ? own + (budget.calls - budget.parentCalls) : own;
      const result = used < runLimit ? await handler(request) : limitMessage(runLimit);
      if (budget) budget.parentCalls = own + 1;
      return result;
    },
  });
}

/** In a `task` subagent: the run's limit, counted over the main agent's and every subagent's calls. */
export function subagentCallLimit(runLimit: number, budget: CallBudget) {
  return createMiddleware({
    name: "SubagentCallLimitMiddleware",
    wrapModelCall: async (request, handler) => (budget.calls < runLimit ? handler(request) : limitMessage(runLimit)),
  });
}
