import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";

type Block = { type?: unknown; thinking?: unknown; data?: unknown; text?: unknown };

function isEmptyThinking(block: unknown): boolean {
  if (typeof block !== "object" || block === null) return false;
  const b = block as Block;
  if (b.type === "thinking") return typeof b.thinking !== "string" || b.thinking.trim() === "";
  if (b.type === "redacted_thinking") return typeof b.data !== "string" || b.data === "";
  return false;
}

/** Drops thinking blocks with no thinking text; Anthropic rejects a request that echoes one back. */
export function sanitizeThinkingBlocks(messages: readonly BaseMessage[]): BaseMessage[] {
  return messages.map((m) => {
    if (!AIMessage.isInstance(m) || !Array.isArray(m.content) || !m.content.some(isEmptyThinking)) return m;
    const content = m.content.filter((b) => !isEmptyThinking(b));
    return new AIMessage({
      content: content.length > 0 ? content : "",
      tool_calls: m.tool_calls ?? [],
      ...(m.id ? { id: m.id } : {}),
      additional_kwargs: m.additional_kwargs,
      response_metadata: m.response_metadata,
    });
  });
}

/** Runs right before the provider call so no earlier middleware can reintroduce an empty block. */
export function sanitizeThinkingBlocksMiddleware() {
  return createMiddleware({
    name: "SanitizeThinkingBlocksMiddleware",
    wrapModelCall: (request, handler) => handler({ ...request, messages: sanitizeThinkingBlocks(request.messages) }),
  });
}
