import { createMiddleware } from "langchain";
import type { Logger } from "../../logger.js";

export type AgentStatus = { kind: "thinking" } | { kind: "tool"; name: string } | { kind: "done" };

export interface SourceStatusDeps {
  /** Shows progress where the request came from (Slack assistant status, a reaction, a check run). */
  onStatus: (status: AgentStatus) => Promise<void> | void;
  logger?: Logger;
}

/**
 * Keeps the source's "working on it" indicator current; a failing status update never fails the run.
 * "thinking" is said as the model call starts, inside the model's node (wrapModelCall): a beforeModel hook
 * would be a graph node of its own, and every node is one more checkpoint written per step.
 */
export function sourceStatusMiddleware(deps: SourceStatusDeps) {
  const report = async (status: AgentStatus): Promise<void> => {
    try {
      await deps.onStatus(status);
    } catch (err) {
      deps.logger?.warn({ err, status: status.kind }, "status update failed");
    }
  };
  return createMiddleware({
    name: "SourceStatusMiddleware",
    wrapModelCall: async (request, handler) => {
      await report({ kind: "thinking" });
      return handler(request);
    },
    wrapToolCall: async (request, handler) => {
      await report({ kind: "tool", name: request.toolCall.name });
      return handler(request);
    },
    afterAgent: async () => {
      await report({ kind: "done" });
      return undefined;
    },
  });
}
