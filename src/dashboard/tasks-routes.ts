import type { Hono } from "hono";
import type { DashboardDeps, DashboardEnv } from "./dashboard-deps.js";

export function mountTasks(_app: Hono<DashboardEnv>, _deps: DashboardDeps): void {}
