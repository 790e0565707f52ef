import type { IncomingMessage, ServerResponse } from "node:http";
import type { Redis } from "ioredis";
import { sendJson } from "./raw-body.js";

/** GET /health: 200 when Redis answers a PING within a second, 503 otherwise. */
export function healthHandler(redis: Redis, role: string) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/health") return false;
    let redisOk = false;
    try {
      redisOk =
        (await Promise.race([redis.ping(), new Promise<string>((_, reject) => setTimeout(() => reject(new Error("timeout")), 1_000))])) === "PONG";
    } catch {
      redisOk = false;
    }
    return sendJson(res, redisOk ? 200 : 503, { status: redisOk ? "ok" : "degraded", role, redis: redisOk ? "up" : "down" });
  };
}
