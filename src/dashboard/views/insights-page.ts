import { html } from "hono/html";
import type { Chart, Insights } from "../insights-data.js";
import type { Session } from "../session-store.js";
import { cost, duration } from "./runs-page.js";
import { layout, type Html } from "./layout.js";

export const INSIGHTS_WINDOWS = [7, 30, 90] as const;

/** Which runs a page sums: every repository the viewer may read, one team (the owner), or one repository. */
export type InsightsScope = { kind: "all" } | { kind: "team"; owner: string } | { kind: "repo"; repo: string };

/** The `scope` query value: "" (all), `team:<owner>` or `repo:<owner/name>`. */
export function scopeValue(scope: InsightsScope): string {
  return scope.kind === "team" ? `team:${scope.owner}` : scope.kind === "repo" ? `repo:${scope.repo}` : "";
}

function scopeQuery(scope: InsightsScope, days: number): string {
  return new URLSearchParams({ ...(scope.kind === "all" ? {} : { scope: scopeValue(scope) }), days: String(days) }).toString();
}

function scopeName(scope: InsightsScope): string {
  return scope.kind === "all" ? "all your repositories" : scope.kind === "team" ? `the ${scope.owner} team` : scope.repo;
}

/** One chart: drawn by insights.js from its data attribute, the numbers also in a table (no script, screen readers). */
function chartBox(insights: Insights, chart: Chart, query: string): Html {
  const data = JSON.stringify({ days: insights.days, unit: chart.unit, series: chart.series });
  return html`<section class="Box" aria-labelledby="h-${chart.id}">
<div class="Box-header d-flex flex-items-center flex-justify-between flex-wrap">
  <h2 class="Box-title" id="h-${chart.id}">${chart.title}</h2>
  <a class="btn btn-sm" href="/app/insights/${chart.id}.csv?${query}" download="${chart.id}.csv">Download CSV<span class="sr-only"> of ${chart.title.toLowerCase()}</span></a>
</div>
<div class="Box-body">
${
  chart.series.length === 0
    ? html`<p class="color-fg-muted mb-0">Nothing recorded in this window.</p>`
    : html`<div class="chart" data-chart="${data}" tabindex="0" role="img" aria-label="${chart.title}, ${chart.unit} per day; use the left and right arrow keys to read each day"></div>
<details class="mt-2"><summary>Numbers</summary><div class="table-wrap"><table class="runs">
<caption class="sr-only">${chart.title} (${chart.unit})</caption>
<thead><tr><th scope="col">Day</th>${chart.series.map((s) => html`<th scope="col">${s.name}</th>`)}</tr></thead>
<tbody>${insights.days.map((d, i) => html`<tr><th scope="row">${d}</th>${chart.series.map((s) => html`<td>${s.values[i] ?? ""}</td>`)}</tr>`)}</tbody>
</table></div></details>`
}
</div>
</section>`;
}

/**
 * The Insights page: pick a team (the repository owner: the deployment has no other notion of team)
 * or a repository and a window; totals, then one box per chart with its CSV.
 */
export function insightsPage(session: Session, o: { scope: InsightsScope; days: number; insights: Insights; owners: string[]; repos: string[]; unreachable: string[] }): Html {
  const current = scopeValue(o.scope);
  const option = (value: string, label: string) => html`<option value="${value}" ${value === current ? "selected" : ""}>${label}</option>`;
  const query = scopeQuery(o.scope, o.days);
  const t = o.insights.totals;
  const body = html`
<form method="get" action="/app/insights" class="filters mb-3" aria-label="Choose what to sum">
  <div class="form-group"><div class="form-group-header"><label for="i-scope">Team or repository</label></div><div class="form-group-body"><select class="form-select" id="i-scope" name="scope">${option("", "all your repositories")}
    <optgroup label="Teams (owners)">${o.owners.map((w) => option(`team:${w}`, w))}</optgroup>
    <optgroup label="Repositories">${o.repos.map((r) => option(`repo:${r}`, r))}</optgroup></select></div></div>
  <div class="form-group"><div class="form-group-header"><label for="i-days">Window</label></div><div class="form-group-body"><select class="form-select" id="i-days" name="days">${INSIGHTS_WINDOWS.map((d) => html`<option value="${d}" ${d === o.days ? "selected" : ""}>last ${d} days</option>`)}</select></div></div>
  <button type="submit" class="btn">Show</button>
</form>
${o.unreachable.length > 0 ? html`<div class="flash flash-warn mb-3" role="status">GitHub did not answer whether you can read ${o.unreachable.join(", ")}, so ${o.unreachable.length === 1 ? "it is" : "they are"} left out. Reload in a minute.</div>` : ""}
<p class="color-fg-muted">Days in UTC, for ${scopeName(o.scope)}. Runs are counted when they end; findings when a review pass records them.</p>
<dl class="facts">
  <dt>Runs</dt><dd>${t.runs}</dd>
  <dt>Cost</dt><dd>${cost(t.usd)}</dd>
  <dt>Tokens</dt><dd>${t.tokens.toLocaleString("en-US")}</dd>
  <dt>Median run</dt><dd>${t.medianMs === null ? "n/a" : duration(t.medianMs)}</dd>
  <dt>p90 run</dt><dd>${t.p90Ms === null ? "n/a" : duration(t.p90Ms)}</dd>
</dl>
<link rel="stylesheet" href="/app/static/uplot.css">
<div class="insights-grid">${o.insights.charts.map((c) => chartBox(o.insights, c, query))}</div>
<script src="/app/static/uplot.js" defer></script>
<script src="/app/static/insights.js" defer></script>`;
  return layout("Insights", session, body);
}
