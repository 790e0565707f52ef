import { AIMessage, type BaseMessage } from "@langchain/core/messages";
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

/** The message that ended a run on the breaker (it answers in place of the model). */
export function isCircuitBreakerMessage(message: BaseMessage | undefined): boolean {
  return message !== undefined && AIMessage.isInstance(message) && message.response_metadata["sandbox_circuit_breaker"] === true;
}

/**
 * Counts consecutive thrown failures of sandbox-backed tools; at the limit the next model turn is
 * replaced by a clear message and the run ends, instead of the model looping on a dead sandbox.
 * Build one per run: the counters live in the instance.
 *
 * The turn is replaced inside the model's node (wrapModelCall), like the model-call limit: a beforeModel
 * hook would be a graph node of its own, one more checkpoint written at every step. The message has no
 * tool call, so the run ends on its normal exit path (`EnsureNoEmptyMessage` leaves it as it is).
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
    wrapModelCall: async (request, handler) => {
      const tripped = state.get(keyOf(request.runtime));
      if (!tripped || tripped.failures < max) return handler(request);
      const message = circuitBreakerMessage(tripped.failures, tripped.lastError);
      await deps.onTrip?.(message);
      return new AIMessage({ content: message, response_metadata: { sandbox_circuit_breaker: true } });
    },
  });
}
