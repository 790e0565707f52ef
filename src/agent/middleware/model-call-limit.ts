import { modelCallLimitMiddleware } from "langchain";

/** langchain's message when the limit ends a run; step-limit-notice looks for it. */
export const MODEL_CALL_LIMIT_MARKER = "Model call limits exceeded";

/** Caps model calls per run; on the cap the run ends with an AI message instead of an error. */
export function modelCallLimit(runLimit: number) {
  // The option type is inferred through zod/v3 and collapses to `undefined` under zod 4.6: the shape is right.
  return modelCallLimitMiddleware({ runLimit, exitBehavior: "end" } as never);
}
