import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";

/** An overloaded or failing provider (HTTP 5xx, Anthropic's 529), as opposed to a bad request we must not mask. */
export function isOverloadOrServerError(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const e = err as { status?: unknown; name?: unknown; message?: unknown; error?: { type?: unknown; error?: { type?: unknown } } | undefined };
  if (typeof e.status === "number") return e.status >= 500;
  if (typeof e.name === "string" && /overloaded|internalserver/i.test(e.name)) return true;
  // Mid-stream failures arrive as an SSE error event: no HTTP status, the type nested in the body.
  const type = e.error?.error?.type ?? e.error?.type;
  if (type === "overloaded_error" || type === "api_error") return true;
  return typeof e.message === "string" && /overloaded_error/.test(e.message);
}

/**
 * Retries a failed model call once on the fallback model, only for overload/5xx. Unlike langchain's
 * `modelFallbackMiddleware`, a 400 (bad request, context too long) is not hidden behind another model.
 */
export function modelFallbackMiddleware(fallback: BaseChatModel, onFallback?: (err: unknown) => void, fallbackModelId?: string) {
  return createMiddleware({
    name: "ModelFallbackMiddleware",
    wrapModelCall: async (request, handler) => {
      try {
        return await handler(request);
      } catch (err) {
        if (!isOverloadOrServerError(err)) throw err;
        onFallback?.(err);
        const result = await handler({ ...request, model: fallback });
        // The run record prices this turn at the fallback's rate.
        if (fallbackModelId && AIMessage.isInstance(result)) result.response_metadata = { ...result.response_metadata, [PRICED_AS]: fallbackModelId };
        return result;
      }
    },
  });
}

/** `response_metadata` key naming the model that actually answered a turn. */
export const PRICED_AS = "open_swe_model";
