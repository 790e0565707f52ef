import { ToolMessage } from "@langchain/core/messages";
import type { Redis } from "ioredis";
import { createMiddleware } from "langchain";
import { z } from "zod";
import { threadIdOf } from "./thread-id.js";

export interface IdempotentToolCallsDeps {
  redis: Redis;
  prefix: string;
  /** Side-effecting tools: pushes, PRs, comments, reviews, scheduled wakeups. */
  tools: readonly string[];
  ttlSeconds?: number;
  /** Before a side-effecting call that is not a replay: throws when this execution lost its job's lock. */
  fence?: () => Promise<void>;
}

const StoredResult = z.object({ content: z.union([z.string(), z.array(z.unknown())]), status: z.enum(["success", "error"]).optional(), name: z.string().optional() });

/**
 * Remembers each side-effecting tool call's result by thread and tool-call id. A worker that died
 * after the tool ran but before LangGraph saved the step re-runs that step on resume: the stored
 * result is returned instead of pushing, commenting or opening a PR a second time.
 */
export function idempotentToolCallsMiddleware(deps: IdempotentToolCallsDeps) {
  const tools = new Set(deps.tools);
  const ttl = deps.ttlSeconds ?? 7 * 24 * 3600;
  return createMiddleware({
    name: "IdempotentToolCallsMiddleware",
    wrapToolCall: async (request, handler) => {
      const id = request.toolCall.id;
      if (!tools.has(request.toolCall.name) || !id) return handler(request);
      const key = `${deps.prefix}:{${threadIdOf(request.runtime) ?? "-"}}:toolcall:${id}`;
      const cached = await deps.redis.get(key);
      if (cached !== null) {
        const stored = StoredResult.parse(JSON.parse(cached));
        return new ToolMessage({ content: stored.content as ToolMessage["content"], tool_call_id: id, name: stored.name ?? request.toolCall.name, status: stored.status ?? "success" });
      }
      await deps.fence?.();
      const result = await handler(request);
      // Errors are not remembered: a retry after a failed push should really retry.
      if (ToolMessage.isInstance(result) && result.status !== "error") {
        await deps.redis.set(key, JSON.stringify({ content: result.content, status: result.status, name: result.name }), "EX", ttl, "NX");
      }
      return result;
    },
  });
}
