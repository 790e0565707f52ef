import type { GitHubAuth } from "../shared/github-auth.js";
import { createServer, type Server } from "node:http";
import { createNodeMiddleware, Probot, type ApplicationFunction } from "probot";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { AppConfig } from "../config/env.js";
import { isProduction, metricsAccess } from "./metrics-access.js";
import { metricsHandler, type QueueDepths } from "./metrics-handler.js";
import { createDashboardApp, dashboardDeps } from "../dashboard/dashboard-app.js";
import { approvalsService } from "../approvals/approvals-service.js";
import { dashboardHandler } from "../dashboard/handler.js";
import type { SettingsStore } from "../store/settings-store.js";
import { healthHandler } from "./health.js";
import { probotLogger } from "./probot-logger.js";
import type { QueueSet } from "../queue/queues.js";
import { SourceDedupe } from "../sources/dedupe.js";
import type { SourceRegistry } from "../sources/registry.js";
import { sendJson } from "../net/raw-body.js";
import { sourceRoutes } from "./source-routes.js";
import { routedPath, webhookBodyLimit } from "./webhook-body-limit.js";
import { UnverifiedBodies } from "./unverified-bodies.js";
import { deliveryGate } from "./delivery-gate.js";
import { DeliveryDedupe } from "../store/delivery-dedupe.js";
import { webhooksTotal } from "../observability/metrics.js";
import { webhookLabels } from "../observability/metric-labels.js";
import { startWebhookProxy, WEBHOOK_PATH } from "../net/webhook-proxy.js";
import { listen } from "../net/listen.js";

const MB = 1024 * 1024;

export interface WebServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** Our own HTTP server around Probot's middleware, so the body limit and /health run before it. */
export async function startWebServer(opts: {
  config: AppConfig;
  github: NonNullable<AppConfig["github"]>;
  app: ApplicationFunction;
  redis: Redis;
  /** The dashboard's (`/app`, `/auth`): omitted, the server has no dashboard. */
  dashboard?: { queues: QueueSet; settings: SettingsStore; github?: GitHubAuth };
  role: string;
  log: Logger;
  /** Slack, Linear, …: their routes are served ahead of Probot's middleware and queue `source-event` jobs. */
  sources?: { registry: SourceRegistry; queues: QueueSet };
  port?: number;
  host?: string;
  /** For the queue depths on GET /metrics. */
  queues?: QueueDepths;
}): Promise<WebServer> {
  // Handlers only decide and enqueue; every GitHub call happens in a worker. So the web role's Probot
  // gets a placeholder token instead of app credentials: events then share one Octokit instead of
  // Probot building an installation client per delivery, and a handler that calls the API anyway fails
  // loudly (401) instead of quietly working.
  const probot = new Probot({
    githubToken: "the-webhook-path-makes-no-github-api-calls",
    secret: opts.github.webhookSecret,
    log: probotLogger(opts.log),
    ...(opts.github.baseUrl ? { baseUrl: opts.github.baseUrl } : {}),
  });
  const webhooks = await createNodeMiddleware(opts.app, { probot, webhooksPath: WEBHOOK_PATH });
  const health = healthHandler(opts.redis, opts.role);
  const host = opts.host ?? opts.config.env.HOST;
  const metrics = metricsHandler({
    access: metricsAccess({ token: opts.config.env.METRICS_TOKEN, production: isProduction(opts.config.env), host }),
    token: opts.config.env.METRICS_TOKEN,
    queueCacheMs: opts.config.env.METRICS_QUEUE_CACHE_SECONDS * 1000,
    ...(opts.queues ? { queues: opts.queues } : {}),
  });
  const env = opts.config.env;
  const limit = webhookBodyLimit({
    path: WEBHOOK_PATH,
    limit: env.MAX_WEBHOOK_BYTES,
    // A body of GitHub's largest size always fits an address's share and the route's.
    bodies: new UnverifiedBodies({
      perAddressBodies: env.WEBHOOK_UNVERIFIED_PER_ADDRESS,
      perAddressBytes: Math.max(env.WEBHOOK_UNVERIFIED_MB_PER_ADDRESS * MB, env.MAX_WEBHOOK_BYTES),
      totalBodies: Math.max(env.WEBHOOK_UNVERIFIED_TOTAL, env.WEBHOOK_UNVERIFIED_PER_ADDRESS),
      totalBytes: Math.max(env.WEBHOOK_UNVERIFIED_MB_TOTAL * MB, env.WEBHOOK_UNVERIFIED_MB_PER_ADDRESS * MB, env.MAX_WEBHOOK_BYTES),
    }),
    log: opts.log.child({ component: "webhooks" }),
  });
  const once = deliveryGate({
    secret: opts.github.webhookSecret,
    dedupe: new DeliveryDedupe(opts.redis, env.QUEUE_PREFIX, env.WEBHOOK_DEDUPE_SECONDS),
    log: opts.log.child({ component: "webhooks" }),
  });
  // Our own server, not Probot's addHandler: the dashboard needs the web role's Redis and queues, and
  // answers before Probot's not-found handler; webhooks keep their own body limit.
  const dashboard = opts.dashboard
    ? dashboardHandler(
        createDashboardApp(
          dashboardDeps({
            config: opts.config,
            redis: opts.redis,
            queues: opts.dashboard.queues,
            settings: opts.dashboard.settings,
            log: opts.log,
            github: opts.dashboard.github ?? null,
            approvals: approvalsService({ config: opts.config, redis: opts.redis, prefix: opts.config.env.QUEUE_PREFIX, queues: opts.dashboard.queues, log: opts.log }),
          }),
        ),
      )
    : null;
  const sources = opts.sources
    ? sourceRoutes({
        sources: opts.sources.registry,
        queues: opts.sources.queues,
        dedupe: new SourceDedupe(opts.redis, opts.config.env.QUEUE_PREFIX),
        maxBytes: opts.config.env.SOURCE_MAX_BODY_BYTES,
        log: opts.log.child({ component: "sources" }),
      })
    : null;
  const server = createServer((req, res) => {
    void (async () => {
      try {
        if (await health(req, res)) return;
        if (dashboard && (await dashboard(req, res))) return;
        if (sources && (await sources(req, res))) return;
        if (await metrics(req, res)) return;
        if (routedPath((req.url ?? "").split("?")[0] ?? "") === WEBHOOK_PATH) res.once("finish", () => webhooksTotal.inc(webhookLabels(req.headers["x-github-event"], res.statusCode)));
        if (await limit(req, res)) return;
        if (await once(req, res)) return;
        await webhooks(req, res, () => sendJson(res, 404, { error: `no route for ${req.method} ${req.url?.split("?")[0]}` }));
      } catch (err) {
        opts.log.error({ err }, "request failed");
        if (!res.headersSent) sendJson(res, 500, { error: "internal error" });
      }
    })();
  });
  server.keepAliveTimeout = 5_000;
  await listen(server, opts.port ?? opts.config.env.PORT, host, "PORT");
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  opts.log.info({ port, path: WEBHOOK_PATH }, "web server listening");
  const proxy = opts.config.env.WEBHOOK_PROXY_URL
    ? startWebhookProxy(opts.config.env.WEBHOOK_PROXY_URL, `http://127.0.0.1:${port}${WEBHOOK_PATH}`, opts.log.child({ component: "webhook-proxy" }))
    : null;
  return {
    server,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        proxy?.close();
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
