import { AIMessage } from "@langchain/core/messages";
import { isGraphBubbleUp } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { errorMessage } from "../../errors.js";
import { threadIdOf } from "./thread-id.js";

export const SANDBOX_TOOLS = ["execute", "read_file", "write_file", "edit_file", "ls", "glob", "grep", "delete"] as const;

export interface SandboxCircuitBreakerDeps {
  maxConsecutiveFailures?: number;
  sandboxTools?: readonly string[];
  /** Which thrown errors count as the sandbox failing (default: every thrown error from a sandbox tool). */
  isSandboxFailure?: (err: unknown) => boolean;
  onTrip?: (message: string) => Promise<void> | void;
}

export function circuitBreakerMessage(failures: number, lastError: string): string {
  return `Stopping: the sandbox failed ${failures} times in a row (last error: ${lastError}). The environment looks unhealthy, so I ended the run rather than keep retrying. Ask me again to start on a fresh sandbox.`;
}

/**
 * Counts consecutive thrown failures of sandbox-backed tools; at the limit the next model turn is
 * replaced by a clear message and the run ends, instead of the model looping on a dead sandbox.
 * Build one per run: the counters live in the instance.
 */
export function sandboxCircuitBreakerMiddleware(deps: SandboxCircuitBreakerDeps = {}) {
  const max = deps.maxConsecutiveFailures ?? 3;
  const tools = new Set(deps.sandboxTools ?? SANDBOX_TOOLS);
  const isFailure = deps.isSandboxFailure ?? (() => true);
  const state = new Map<string, { failures: number; lastError: string }>();
  const keyOf = (runtime: Parameters<typeof threadIdOf>[0]): string => threadIdOf(runtime) ?? "";

  return createMiddleware({
    name: "SandboxCircuitBreakerMiddleware",
    wrapToolCall: async (request, handler) => {
      if (!tools.has(request.toolCall.name)) return handler(request);
      const key = keyOf(request.runtime);
      try {
        const result = await handler(request);
        state.delete(key);
        return result;
      } catch (err) {
        if (!isGraphBubbleUp(err) && isFailure(err)) {
          const prev = state.get(key)?.failures ?? 0;
          state.set(key, { failures: prev + 1, lastError: errorMessage(err).slice(0, 300) });
        }
        throw err;
      }
    },
    beforeModel: {
      canJumpTo: ["end"],
      hook: async (_s, runtime) => {
        const tripped = state.get(keyOf(runtime));
        if (!tripped || tripped.failures < max) return undefined;
        const message = circuitBreakerMessage(tripped.failures, tripped.lastError);
        await deps.onTrip?.(message);
        return { jumpTo: "end", messages: [new AIMessage(message)] };
      },
    },
  });
}
