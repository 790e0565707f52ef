import type { IncomingMessage, ServerResponse } from "node:http";
import type { Redis } from "ioredis";
import { sendJson } from "../net/raw-body.js";

/** Readiness: `/readyz`, and `/health` (its name before the probes were split). */
const READY_PATHS = new Set(["/readyz", "/health"]);

/**
 * The probes. GET /livez (liveness: restart me if this fails): 200 whenever the process answers — its event
 * loop runs —, asking nothing of Redis or the workers, so an outage elsewhere never gets a healthy process
 * killed. GET /readyz and GET /health (readiness: send me work): 200 when Redis answers a PING within a
 * second (and `check`, if given, reports no problem), 503 otherwise.
 */
export function healthHandler(redis: Redis, role: string, check?: () => string | null) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (req.method !== "GET") return false;
    const path = (req.url ?? "").split("?")[0] ?? "";
    if (path === "/livez") return sendJson(res, 200, { status: "ok", role });
    if (!READY_PATHS.has(path)) return false;
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
