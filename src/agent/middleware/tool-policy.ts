import { ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";

export const TOOL_DENIED_ERROR_CODE = "tool_denied_by_policy";

export const toolDeniedMessage = (tool: string) => `Error (${TOOL_DENIED_ERROR_CODE}, non-recoverable): \`${tool}\` is disabled for this repository by policy. Continue without it.`;

/**
 * `deny` policies: the denied tools are taken out of every model request (the model never sees them),
 * and a call that names one anyway (a stale history, a hallucinated name) is refused without running.
 */
export function toolPolicyMiddleware(denied: readonly string[]) {
  const blocked = new Set(denied);
  const toolName = (t: unknown) => (t as { name?: unknown }).name;
  return createMiddleware({
    name: "ToolPolicyMiddleware",
    wrapModelCall: (request, handler) => (blocked.size === 0 ? handler(request) : handler({ ...request, tools: request.tools.filter((t) => !blocked.has(String(toolName(t)))) })),
    wrapToolCall: async (request, handler) => {
      const { toolCall } = request;
      if (!blocked.has(toolCall.name)) return handler(request);
      return new ToolMessage({ content: toolDeniedMessage(toolCall.name), tool_call_id: toolCall.id ?? "", name: toolCall.name, status: "error" });
    },
  });
}
