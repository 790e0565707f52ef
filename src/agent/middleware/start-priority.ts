import { createMiddleware } from "langchain";

export interface StartPriorityDeps {
  /** This run reached its first model or tool call: it no longer counts as starting. */
  started: () => void;
  /** Waits while other runs are starting on this worker (bounded by the worker's StartPriority). */
  yieldToStarting: () => Promise<void>;
}

/**
 * A run's first model (or, resumed, tool) call ends its start; every later call first yields to the runs
 * starting on the same worker, so a new request's first response does not queue behind this run's steps.
 */
export function startPriorityMiddleware(deps: StartPriorityDeps) {
  let running = false;
  const turn = async () => {
    if (running) return deps.yieldToStarting();
    running = true;
    deps.started();
  };
  return createMiddleware({
    name: "StartPriorityMiddleware",
    wrapModelCall: async (request, handler) => {
      await turn();
      return handler(request);
    },
    wrapToolCall: async (request, handler) => {
      await turn();
      return handler(request);
    },
  });
}
