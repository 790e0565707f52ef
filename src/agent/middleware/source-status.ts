import { createMiddleware } from "langchain";
import type { Logger } from "../../logger.js";

export type AgentStatus = { kind: "thinking" } | { kind: "tool"; name: string } | { kind: "done" };

export interface SourceStatusDeps {
  /** Shows progress where the request came from (Slack assistant status, a reaction, a check run). */
  onStatus: (status: AgentStatus) => Promise<void> | void;
  logger?: Logger;
}

/** Keeps the source's "working on it" indicator current; a failing status update never fails the run. */
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
    beforeModel: async () => {
      await report({ kind: "thinking" });
      return undefined;
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
