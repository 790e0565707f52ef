import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Queue } from "bullmq";
import { sendJson } from "./raw-body.js";
import { queueJobs, registry } from "../observability/metrics.js";

const STATES = ["waiting", "active", "delayed", "failed"] as const;

function authorized(req: IncomingMessage, token: string | undefined): boolean {
  if (!token) return true;
  const header = req.headers.authorization ?? "";
  const m = /^Bearer\s+(.+)$/i.exec(header);
  if (!m) return false;
  const given = Buffer.from(m[1]!.trim());
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

/** Queue depths are read from Redis at scrape time, so every role reports the same numbers. */
async function updateQueueDepths(queues: Record<string, Queue>): Promise<void> {
  await Promise.all(
    Object.entries(queues).map(async ([name, q]) => {
      const counts = await q.getJobCounts(...STATES);
      for (const state of STATES) queueJobs.set({ queue: name, state }, counts[state] ?? 0);
    }),
  );
}

/** GET /metrics (Prometheus text format); behind `Authorization: Bearer <METRICS_TOKEN>` when one is set. */
export function metricsHandler(o: { token: string | undefined; queues?: Record<string, Queue> }) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") return false;
    if (!authorized(req, o.token)) {
      res.setHeader("www-authenticate", 'Bearer realm="metrics"');
      sendJson(res, 401, { error: "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>" });
      return true;
    }
    if (o.queues) await updateQueueDepths(o.queues).catch(() => undefined);
    const body = await registry.metrics();
    res.writeHead(200, { "content-type": registry.contentType });
    res.end(body);
    return true;
  };
}
