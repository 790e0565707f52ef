import type { IncomingMessage, ServerResponse } from "node:http";
import type { Redis } from "ioredis";
import { sendJson } from "../net/raw-body.js";

/**
 * GET /health: 200 when Redis answers a PING within a second (and `check`, if given, reports no
 * problem), 503 otherwise.
 */
export function healthHandler(redis: Redis, role: string, check?: () => string | null) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/health") return false;
    let redisOk = false;
    try {
      redisOk = (await Promise.race([redis.ping(), new Promise<string>((_, reject) => setTimeout(() => reject(new Error("timeout")), 1_000))])) === "PONG";
    } catch {
      redisOk = false;
    }
    const problem = check?.() ?? null;
    const ok = redisOk && problem === null;
    return sendJson(res, ok ? 200 : 503, { status: ok ? "ok" : "degraded", role, redis: redisOk ? "up" : "down", ...(problem ? { problem } : {}) });
  };
}
