import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { todoListMiddleware, type AgentMiddleware } from "langchain";

const PARALLEL_TODOS = "Error: The `write_todos` tool should never be called multiple times in parallel. Please call it only once per model invocation to update the todo list.";

/**
 * langchain's todo list (the `write_todos` tool, its prompt and its state) with its one check made where
 * the calls run: several `write_todos` calls in one model turn each get the same error and none runs.
 * langchain makes that check in an after-model hook, which is a graph node of its own, so a checkpoint
 * written at every step of every run for a check that almost never fires.
 */
export function todoListWithoutAfterModel(): AgentMiddleware {
  const { afterModel: _check, ...todo } = todoListMiddleware();
  return {
    ...todo,
    wrapToolCall: (request, handler) => {
      if (request.toolCall.name !== "write_todos") return handler(request);
      const messages = (request.state as { messages?: unknown[] }).messages ?? [];
      const turn = messages.findLast((m): m is AIMessage => AIMessage.isInstance(m));
      const calls = turn?.tool_calls?.filter((c) => c.name === "write_todos").length ?? 0;
      if (calls <= 1) return handler(request);
      return new ToolMessage({ content: PARALLEL_TODOS, tool_call_id: request.toolCall.id ?? "", name: "write_todos", status: "error" });
    },
  } as AgentMiddleware;
}
