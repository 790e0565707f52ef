import type { Context, MiddlewareHandler } from "hono";
import { sameSecret, sessionOf } from "./auth-routes.js";
import type { DashboardDeps, DashboardEnv } from "./dashboard-deps.js";
import { messagePage } from "./views/layout.js";

/** Pure: may a state-changing request go ahead? Forms carry the session's CSRF token; bull-board's own
 * fetch calls (no token) must come from this origin. */
export function csrfAllowed(o: { token: string | undefined; sessionToken: string; path: string; origin: string | undefined; secFetchSite: string | undefined; host: string | undefined }): boolean {
  if (o.token !== undefined && sameSecret(o.token, o.sessionToken)) return true;
  if (!o.path.startsWith("/app/admin/queues/")) return false;
  if (o.secFetchSite !== undefined) return o.secFetchSite === "same-origin";
  if (!o.origin || !o.host) return false;
  try {
    return new URL(o.origin).host === o.host;
  } catch {
    return false;
  }
}

async function tokenOf(c: Context): Promise<string | undefined> {
  const header = c.req.header("x-csrf-token");
  if (header) return header;
  const type = c.req.header("content-type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded") && !type.startsWith("multipart/form-data")) return undefined;
  const field = (await c.req.parseBody())["_csrf"];
  return typeof field === "string" ? field : undefined;
}

/** Signed out: a page request goes to sign-in, anything else is 401. Every non-GET needs its CSRF token. */
export function requireSession(deps: DashboardDeps): MiddlewareHandler<DashboardEnv> {
  return async (c, next) => {
    const current = await sessionOf(deps, c);
    if (!current) {
      if (c.req.method === "GET" && !c.req.path.includes("/api/")) return c.redirect(`/auth/sign-in?next=${encodeURIComponent(c.req.path)}`, 302);
      return c.html(messagePage("Signed out", null, "Sign in first.", { href: "/auth/sign-in", label: "Sign in" }), 401);
    }
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      const ok = csrfAllowed({
        token: await tokenOf(c),
        sessionToken: current.session.csrf,
        path: c.req.path,
        origin: c.req.header("origin"),
        secFetchSite: c.req.header("sec-fetch-site"),
        host: c.req.header("host"),
      });
      if (!ok) {
        deps.log.warn({ login: current.session.login, path: c.req.path }, "dashboard post refused: no CSRF token");
        return c.html(messagePage("Refused", current.session, "This request is missing its CSRF token. Reload the page and try again."), 403);
      }
    }
    c.set("session", current.session);
    c.set("sessionId", current.id);
    await next();
  };
}

/** Admin is today's `DASHBOARD_ADMINS`, asked on every request (a session keeps no admin right of its own). */
export function requireAdmin(deps: Pick<DashboardDeps, "config">): MiddlewareHandler<DashboardEnv> {
  return async (c, next) => {
    const session = c.get("session");
    if (!session.admin || !deps.config.env.DASHBOARD_ADMINS.includes(session.login.toLowerCase()))
      return c.html(messagePage("Admins only", session, `@${session.login} is not a dashboard admin (DASHBOARD_ADMINS).`), 403);
    await next();
  };
}
