import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { z } from "zod";

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

export function modelCallLimit(runLimit: number, budget?: CallBudget) {
  return createMiddleware({
    name: "ModelCallLimitMiddleware",
    stateSchema: z.object({ runModelCallCount: z.number().default(0) }),
    beforeAgent: () => ({ runModelCallCount: 0 }),
    wrapModelCall: async (request, handler) => {
      const own = request.state.runModelCallCount ?? 0;
      // The subagents' calls count against the same limit.
      const used = budget ? own + (budget.calls - budget.parentCalls) : own;
      if (used < runLimit) return handler(request);
      return limitMessage(runLimit);
    },
    afterModel: (state) => {
      const count = (state.runModelCallCount ?? 0) + 1;
      if (budget) budget.parentCalls = count;
      return { runModelCallCount: count };
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
