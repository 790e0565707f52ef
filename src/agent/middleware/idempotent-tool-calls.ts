import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { ToolMessage } from "@langchain/core/messages";
import type { Redis } from "ioredis";
import { createMiddleware } from "langchain";
import { z } from "zod";
import { luaScript } from "../../shared/lua-script.js";
import { threadIdOf } from "./thread-id.js";

export interface IdempotentToolCallsDeps {
  redis: Redis;
  prefix: string;
  /** Side-effecting tools: pushes, PRs, comments, reviews, scheduled wakeups. */
  tools: readonly string[];
  ttlSeconds?: number;
  /** Before a side-effecting call that is not a replay: throws when this execution lost its job's lock. */
  fence?: () => Promise<void>;
  /** How long a claim outlives an execution that stopped renewing it (crashed); renewed every third of it. */
  claimMs?: number;
  /** How often an execution waiting on another's claim looks again. */
  pollMs?: number;
}

const StoredResult = z.object({ content: z.union([z.string(), z.array(z.unknown())]), status: z.enum(["success", "error"]).optional(), name: z.string().optional() });
const Claim = z.object({ claim: z.string() });
const Stored = z.union([Claim, StoredResult]);

/** Renews (ARGV[2] = ms) or, with no ARGV[2], drops the claim — only while it is still this execution's. */
const CLAIM_IF_MINE = `local v = redis.call("GET", KEYS[1])
if v ~= ARGV[1] then return 0 end
if ARGV[2] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end
return redis.call("DEL", KEYS[1])`;
const ifMine = luaScript(CLAIM_IF_MINE);

/**
 * Remembers each side-effecting tool call's result by thread and tool-call id. A worker that died
 * after the tool ran but before LangGraph saved the step re-runs that step on resume: the stored
 * result is returned instead of pushing, commenting or opening a PR a second time.
 *
 * The call is claimed before it runs, and the claim is renewed while it runs: an execution that lost
 * its job's lock (a Redis pause, a slow machine) may still be finishing a push when the job's next
 * execution reaches the same call; that one waits for the result instead of doing it again. A claim
 * that is no longer renewed (its worker died) lapses after `claimMs`, and the call is done again.
 */
export function idempotentToolCallsMiddleware(deps: IdempotentToolCallsDeps) {
  const tools = new Set(deps.tools);
  const ttl = deps.ttlSeconds ?? 7 * 24 * 3600;
  const claimMs = deps.claimMs ?? 30_000;
  const pollMs = deps.pollMs ?? 200;
  return createMiddleware({
    name: "IdempotentToolCallsMiddleware",
    wrapToolCall: async (request, handler) => {
      const id = request.toolCall.id;
      if (!tools.has(request.toolCall.name) || !id) return handler(request);
      const key = `${deps.prefix}:{${threadIdOf(request.runtime) ?? "-"}}:toolcall:${id}`;
      const claim = JSON.stringify({ claim: randomUUID() });
      for (;;) {
        const cached = await deps.redis.get(key);
        if (cached !== null) {
          const stored = Stored.parse(JSON.parse(cached));
          if (!("claim" in stored)) {
            return new ToolMessage({ content: stored.content as ToolMessage["content"], tool_call_id: id, name: stored.name ?? request.toolCall.name, status: stored.status ?? "success" });
          }
          // Another execution is doing this call now: its result, or its claim lapsing, ends the wait.
          await deps.fence?.();
          await sleep(pollMs);
          continue;
        }
        await deps.fence?.();
        if ((await deps.redis.set(key, claim, "PX", claimMs, "NX")) === "OK") break;
      }
      const renew = setInterval(() => void ifMine(deps.redis, 1, key, claim, String(claimMs)).catch(() => undefined), Math.max(10, Math.floor(claimMs / 3)));
      let result: Awaited<ReturnType<typeof handler>>;
      try {
        result = await handler(request);
      } catch (err) {
        clearInterval(renew);
        await ifMine(deps.redis, 1, key, claim).catch(() => undefined);
        throw err;
      }
      clearInterval(renew);
      // Errors are not remembered: a retry after a failed push should really retry.
      if (ToolMessage.isInstance(result) && result.status !== "error") {
        await deps.redis.set(key, JSON.stringify({ content: result.content, status: result.status, name: result.name }), "EX", ttl);
      } else {
        await ifMine(deps.redis, 1, key, claim);
      }
      return result;
    },
  });
}
