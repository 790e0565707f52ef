import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { queueJobs, registry } from "../observability/metrics.js";
import type { MetricsAccess } from "./metrics-access.js";
import { sendJson } from "../net/raw-body.js";

const STATES = ["waiting", "active", "delayed", "failed"] as const;

/** The queues whose depths `/metrics` reports: each counted with its host queues (`QueueSet` implements it). */
export interface QueueDepths {
  readonly names: readonly string[];
  jobCounts(name: string, states: readonly (typeof STATES)[number][]): Promise<Record<string, number>>;
}

function authorized(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization ?? "";
  const m = /^Bearer\s+(.+)$/i.exec(header);
  if (!m) return false;
  const given = Buffer.from(m[1]!.trim());
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

/**
 * Queue depths are read from Redis (so every role reports the same numbers), at most once per `ttlMs`:
 * a count costs BullMQ dozens of Redis commands per queue, and scrapes (or a flood of them) share the
 * last answer and any read in flight.
 */
function queueDepths(queues: QueueDepths, ttlMs: number, now = () => Date.now()) {
  let readAt = -Infinity;
  let inFlight: Promise<void> | null = null;
  const read = async () => {
    await Promise.all(
      queues.names.map(async (name) => {
        const counts = await queues.jobCounts(name, STATES);
        for (const state of STATES) queueJobs.set({ queue: name, state }, counts[state] ?? 0);
      }),
    );
    readAt = now();
  };
  return (): Promise<void> => {
    if (now() - readAt < ttlMs) return Promise.resolve();
    inFlight ??= read().finally(() => (inFlight = null));
    return inFlight;
  };
}

/**
 * GET /metrics (Prometheus text format). `access` (see `metricsAccess`): `token` needs
 * `Authorization: Bearer <METRICS_TOKEN>`, `refused` answers 403 saying what to set.
 */
export function metricsHandler(o: { access: MetricsAccess; token: string | undefined; queues?: QueueDepths; queueCacheMs: number }) {
  const refresh = o.queues ? queueDepths(o.queues, o.queueCacheMs) : null;
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") return false;
    if (o.access === "refused") {
      sendJson(res, 403, { error: "GET /metrics is off here in production without METRICS_TOKEN: set METRICS_TOKEN, or scrape a listener bound to 127.0.0.1" });
      return true;
    }
    if (o.access === "token" && !authorized(req, o.token ?? "")) {
      res.setHeader("www-authenticate", 'Bearer realm="metrics"');
      sendJson(res, 401, { error: "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>" });
      return true;
    }
    if (refresh) await refresh().catch(() => undefined);
    const body = await registry.metrics();
    res.writeHead(200, { "content-type": registry.contentType });
    res.end(body);
    return true;
  };
}
