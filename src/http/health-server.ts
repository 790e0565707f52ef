import { createServer, type Server } from "node:http";
import type { Redis } from "ioredis";
import { metricsAccess } from "./metrics-access.js";
import { metricsHandler, type QueueDepths } from "./metrics-handler.js";
import { healthHandler } from "./health.js";
import { sendJson } from "../net/raw-body.js";
import { listen } from "../net/listen.js";

/** A worker's own endpoints (it serves no webhooks): GET /livez, /readyz (= /health) for probes, GET /metrics. */
export async function startHealthServer(o: {
  redis: Redis;
  role: string;
  port: number;
  host: string;
  check?: () => string | null;
  metricsToken?: string | undefined;
  /** NODE_ENV=production or APP_URL set: without a token, /metrics answers only when `host` is loopback. */
  production: boolean;
  queueCacheMs: number;
  queues?: QueueDepths;
}): Promise<{ port: number; close(): Promise<void> }> {
  const health = healthHandler(o.redis, o.role, o.check);
  const metrics = metricsHandler({
    access: metricsAccess({ token: o.metricsToken, production: o.production, host: o.host }),
    token: o.metricsToken,
    queueCacheMs: o.queueCacheMs,
    ...(o.queues ? { queues: o.queues } : {}),
  });
  const server: Server = createServer((req, res) => {
    void (async () => (await health(req, res)) || (await metrics(req, res)) || sendJson(res, 404, { error: "only GET /livez, /readyz, /health and /metrics here" }))().catch(() => {
      if (!res.headersSent) sendJson(res, 500, { error: "internal error" });
    });
  });
  await listen(server, o.port, o.host, "HEALTH_PORT");
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
