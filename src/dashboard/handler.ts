import type { IncomingMessage, ServerResponse } from "node:http";
import { getRequestListener } from "@hono/node-server";
import type { Hono } from "hono";
import type { DashboardEnv } from "./dashboard-deps.js";

/** Pure: is this request the dashboard's? `/app`, `/app/…`, `/auth/…`. */
export function isDashboardPath(url: string | undefined): boolean {
  const u = url ?? "";
  const q = u.indexOf("?");
  const path = q < 0 ? u : u.slice(0, q);
  return path === "/app" || path.startsWith("/app/") || path.startsWith("/auth/");
}

/** The dashboard as a step of our node server: answers its own paths (true), leaves the rest (false). */
export function dashboardHandler(app: Hono<DashboardEnv>): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  // Node's globals stay Node's: Probot and nock share them in the same process.
  const listener = getRequestListener(app.fetch, { overrideGlobalObjects: false });
  return async (req, res) => {
    if (!isDashboardPath(req.url)) return false;
    await listener(req, res);
    return true;
  };
}
