import type { Context, Hono } from "hono";
import { z } from "zod";
import { RunInsights } from "../store/run-insights.js";
import type { DashboardDeps, DashboardEnv } from "./dashboard-deps.js";
import { aggregateInsights, CHART_IDS, chartCsv, dayRange, type Insights } from "./insights-data.js";
import { repoRightNow } from "./repo-rights.js";
import type { Session } from "./session-store.js";
import { messagePage } from "./views/layout.js";
import { INSIGHTS_WINDOWS, insightsPage, type InsightsScope } from "./views/insights-page.js";

const InsightsQuery = z.object({
  scope: z
    .string()
    .regex(/^(|team:[a-z0-9][a-z0-9._-]{0,99}|repo:[a-z0-9][a-z0-9._-]{0,99}\/[a-z0-9._-]{1,100})$/i, "scope is team:<owner> or repo:<owner>/<name>")
    .default(""),
  days: z.coerce
    .number()
    .int()
    .refine((d) => (INSIGHTS_WINDOWS as readonly number[]).includes(d), `days is one of ${INSIGHTS_WINDOWS.join(", ")}`)
    .default(30),
});

/** Pure: the scope a query names, lower-cased (repository names are case-insensitive). */
export function parseScope(value: string): InsightsScope {
  const v = value.toLowerCase();
  if (v.startsWith("team:")) return { kind: "team", owner: v.slice(5) };
  if (v.startsWith("repo:")) return { kind: "repo", repo: v.slice(5) };
  return { kind: "all" };
}

/** Pure: the viewer's repositories a scope covers. */
export function scopeRepos(repos: readonly string[], scope: InsightsScope): string[] {
  if (scope.kind === "team") return repos.filter((r) => r.split("/")[0] === scope.owner);
  if (scope.kind === "repo") return repos.filter((r) => r === scope.repo);
  return [...repos];
}

type Answer = { ok: true; scope: InsightsScope; days: number; insights: Insights; unreachable: string[] } | { ok: false; response: Response | Promise<Response> };

/**
 * The Insights page and its CSVs. Only repositories the viewer may read now are summed: those of the
 * session (writable at sign-in), each asked of GitHub again (`repoRightNow`, cached at most 5 minutes);
 * one GitHub would not answer for is left out and named.
 */
export function mountInsights(app: Hono<DashboardEnv>, deps: DashboardDeps): void {
  const store = new RunInsights(deps.redis, deps.prefix);

  async function answer(c: Context<DashboardEnv>, session: Session): Promise<Answer> {
    const parsed = InsightsQuery.safeParse(c.req.query());
    if (!parsed.success)
      return { ok: false, response: c.html(messagePage("Bad request", session, parsed.error.issues.map((i) => i.message).join("; "), { href: "/app/insights", label: "Insights" }), 400) };
    const scope = parseScope(parsed.data.scope);
    const candidates = scopeRepos(session.repos, scope);
    const rights = await Promise.all(candidates.map((repo) => repoRightNow(deps, session.login, repo, session.installations[repo])));
    const repos = candidates.filter((_, i) => rights[i] === "write");
    const unreachable = candidates.filter((_, i) => rights[i] === "unreachable");
    // A team or repository never the viewer's, or no longer: the same answer, saying nothing of it.
    if (scope.kind !== "all" && repos.length === 0 && unreachable.length === 0)
      return { ok: false, response: c.html(messagePage("Not found", session, "There is no such team or repository among those you can read.", { href: "/app/insights", label: "Insights" }), 404) };
    const days = dayRange(Date.now(), parsed.data.days);
    return { ok: true, scope, days: parsed.data.days, insights: aggregateInsights(await store.read(repos, days), days), unreachable };
  }

  app.get("/app/insights", async (c) => {
    const session = c.get("session");
    const a = await answer(c, session);
    if (!a.ok) return a.response;
    const owners = [...new Set(session.repos.map((r) => r.split("/")[0]!))].sort();
    return c.html(insightsPage(session, { ...a, owners, repos: [...session.repos].sort() }));
  });

  app.get("/app/insights/:file{[a-z]+\\.csv}", async (c) => {
    const session = c.get("session");
    const id = c.req.param("file").slice(0, -4);
    const chartId = CHART_IDS.find((x) => x === id);
    if (!chartId) return c.html(messagePage("Not found", session, `There is no chart named ${id}; charts: ${CHART_IDS.join(", ")}.`, { href: "/app/insights", label: "Insights" }), 404);
    const a = await answer(c, session);
    if (!a.ok) return a.response;
    const chart = a.insights.charts.find((x) => x.id === chartId)!;
    return c.body(chartCsv(a.insights.days, chart), 200, { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${chartId}.csv"`, "cache-control": "no-store" });
  });
}
