import type { GitHubAuth } from "../shared/github-auth.js";
import type { Approvals } from "../threads/approvals.js";
import { createHmac } from "node:crypto";
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { HonoAdapter } from "@bull-board/hono";
import { serveStatic } from "@hono/node-server/serve-static";
import { Hono, type MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { RedisSaver } from "../agent/checkpoint/redis-saver.js";
import type { AppConfig } from "../config/env.js";
import { HOST_QUEUES } from "../queue/host-routes.js";
import type { QueueSet } from "../queue/queues.js";
import { SecretBox } from "../store/secret-box.js";
import type { SettingsStore } from "../store/settings-store.js";
import { mountAdmin } from "./admin-routes.js";
import { mountApprovals } from "./approvals-routes.js";
import { mountAuth } from "./auth-routes.js";
import type { DashboardDeps, DashboardEnv } from "./dashboard-deps.js";
import { requireAdmin, requireSession } from "./guards.js";
import { LiveHub } from "./live-hub.js";
import { LiveStreamLimit } from "./live-stream-limit.js";
import { PrHealthCache } from "./pr-health.js";
import { SessionStore } from "./session-store.js";
import { mountInsights } from "./insights-routes.js";
import { mountProfile } from "./profile-routes.js";
import { mountRuns } from "./runs-routes.js";
import { mountStaticAssets, stripBullBoardFonts } from "./static-assets.js";
import { mountTasks } from "./tasks-routes.js";
import { messagePage } from "./views/layout.js";

export const QUEUES_PATH = "/app/admin/queues";

/** Builds what the dashboard needs from the web role's config and connections. */
export function dashboardDeps(o: { config: AppConfig; redis: Redis; queues: QueueSet; settings: SettingsStore; log: Logger; github?: GitHubAuth | null; approvals: Approvals }): DashboardDeps {
  const env = o.config.env;
  const web = env.GHE_HOST ? `https://${env.GHE_HOST}` : "https://github.com";
  const api = o.config.github?.baseUrl ?? "https://api.github.com";
  // The cookie key is derived from the app's private key: nothing more to configure, and it changes with it.
  const cookieSecret = createHmac("sha256", o.config.github?.privateKey ?? "")
    .update("open-swe dashboard cookies v1")
    .digest();
  return {
    config: o.config,
    redis: o.redis,
    prefix: env.QUEUE_PREFIX,
    queues: o.queues,
    settings: o.settings,
    sessions: new SessionStore(o.redis, env.QUEUE_PREFIX, env.DASHBOARD_SESSION_HOURS * 3600),
    checkpoints: new RedisSaver({ redis: o.redis, prefix: `${env.QUEUE_PREFIX}:ckpt` }),
    oauth: env.GITHUB_CLIENT_ID && env.GITHUB_CLIENT_SECRET ? { clientId: env.GITHUB_CLIENT_ID, clientSecret: env.GITHUB_CLIENT_SECRET, webBase: web, apiBase: api } : null,
    secretBox: env.OPEN_SWE_SECRET_KEY ? new SecretBox(env.OPEN_SWE_SECRET_KEY, env.OPEN_SWE_SECRET_KEY_PREVIOUS ? [env.OPEN_SWE_SECRET_KEY_PREVIOUS] : []) : null,
    cookieSecret,
    secureCookies: env.APP_URL?.startsWith("https:") ?? false,
    liveStreams: new LiveStreamLimit({ perSession: env.DASHBOARD_LIVE_STREAMS_PER_SESSION, perAddress: env.DASHBOARD_LIVE_STREAMS_PER_ADDRESS }),
    prHealth: new PrHealthCache(),
    live: new LiveHub(o.redis, o.log.child({ component: "dashboard" })),
    log: o.log.child({ component: "dashboard" }),
    github: o.github ?? null,
    approvals: o.approvals,
  };
}

/**
 * The dashboard: `/auth/*` (GitHub sign-in) and `/app/*` (pages, signed in), server-rendered HTML.
 * Scripts only on the run page (live view) and bull-board; the CSP allows nothing inline elsewhere.
 * Forms may post (and be redirected) to GitHub's web host only — `https://<GHE_HOST>` with GHE set —
 * for the OAuth authorize step ("open PRs as me", sign-in).
 */
export function createDashboardApp(deps: DashboardDeps): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  app.onError((err, c) => {
    deps.log.error({ err: err.message, path: c.req.path }, "dashboard request failed");
    return c.html(messagePage("Something went wrong", null, "The dashboard could not answer this request; the error is in the server log."), 500);
  });
  app.notFound((c) => c.html(messagePage("Not found", null, `There is no page at ${c.req.path}.`, { href: "/app", label: "Dashboard" }), 404));
  const ours = secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", "data:"],
      formAction: ["'self'", deps.oauth?.webBase ?? "https://github.com"],
      frameAncestors: ["'none'"],
    },
    referrerPolicy: "same-origin",
  });
  app.use("/auth/*", ours);
  app.use("/app/*", async (c, next) => (c.req.path.startsWith(QUEUES_PATH) ? next() : ours(c, next)));
  mountStaticAssets(app);
  mountAuth(app, deps);
  app.use("/app", requireSession(deps));
  app.use("/app/*", requireSession(deps));
  app.use("/app/admin", requireAdmin(deps));
  app.use("/app/admin/*", requireAdmin(deps));
  mountRuns(app, deps);
  mountTasks(app, deps);
  mountProfile(app, deps);
  mountAdmin(app, deps);
  mountApprovals(app, deps);
  mountInsights(app, deps);

  const board = new HonoAdapter(serveStatic);
  // Admins administer, they do not impersonate: the queue view only reads (no add, retry, edit, clean:
  // bull-board answers 405). A job it could add would be unsigned anyway, and the worker refuses those.
  const bull = createBullBoard({
    queues: Object.values(deps.queues.queues).map((q) => new BullMQAdapter(q, { readOnlyMode: true })),
    serverAdapter: board,
  });
  board.setBasePath(QUEUES_PATH);
  // A thread's later runs wait in its sandbox's host's own queue (`agent@<host>`): those join the view as hosts register.
  const shown = new Set(Object.values(deps.queues.queues).map((q) => q.name));
  const showHostQueues: MiddlewareHandler = async (_c, next) => {
    for (const name of HOST_QUEUES) {
      for (const q of await deps.queues.allQueues(name)) {
        if (shown.has(q.name)) continue;
        shown.add(q.name);
        bull.addQueue(new BullMQAdapter(q, { readOnlyMode: true }));
      }
    }
    await next();
  };
  app.use(QUEUES_PATH, showHostQueues, stripBullBoardFonts);
  app.use(`${QUEUES_PATH}/*`, showHostQueues, stripBullBoardFonts);
  app.route(QUEUES_PATH, board.registerPlugin());
  return app;
}
