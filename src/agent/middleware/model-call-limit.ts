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
export function modelCallLimit(runLimit: number) {
  return createMiddleware({
    name: "ModelCallLimitMiddleware",
    stateSchema: z.object({ runModelCallCount: z.number().default(0) }),
    beforeAgent: () => ({ runModelCallCount: 0 }),
    wrapModelCall: async (request, handler) => {
      if ((request.state.runModelCallCount ?? 0) < runLimit) return handler(request);
      return new AIMessage({
        content: `${MODEL_CALL_LIMIT_MARKER}: this run made ${runLimit} model calls, its limit.`,
        response_metadata: { model_call_limit: true },
      });
    },
    afterModel: (state) => ({ runModelCallCount: (state.runModelCallCount ?? 0) + 1 }),
  });
}
