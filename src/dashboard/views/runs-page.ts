import { html } from "hono/html";
import type { RunRecord } from "../../shared/run-record.js";
import { RunStatus, type RunEntry } from "../../store/run-index.js";
import type { Session } from "../session-store.js";
import { statusBadge, timeTag } from "./badges.js";
import { layout, type Html } from "./layout.js";

export interface RunRow {
  entry: RunEntry;
  record: RunRecord | null;
}

export function duration(ms: number | undefined): string {
  if (ms === undefined) return "";
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.floor(s / 60)}m ${s % 60}s` : `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

export function cost(usd: number | undefined): string {
  return usd === undefined ? "n/a" : `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}

/** "Approved by @erin", "Denied by @erin", "Denied automatically (timed out)". */
export function decisionText(a: NonNullable<RunEntry["approval"]>): string {
  if (a.by === null) return "Denied automatically (timed out)";
  return `${a.decision === "approve" ? "Approved" : "Denied"} by @${a.by}`;
}

function runDuration(r: RunRow): string {
  if (r.record) return duration(r.record.durationMs);
  if (r.entry.startedAt) return duration((r.entry.finishedAt ?? Date.now()) - r.entry.startedAt);
  return "";
}

export interface RunsFilterValues {
  repo?: string | undefined;
  status?: string | undefined;
  source?: string | undefined;
}

/** The runs list: a table on wide screens, stacked cards (status, repo, cost, PR first) under 700 px. */
export function runsPage(session: Session, rows: RunRow[], filter: RunsFilterValues, nextHref: string | null, now = Date.now()): Html {
  const option = (value: string, current: string | undefined, label = value) => html`<option value="${value}" ${value === (current ?? "") ? "selected" : ""}>${label}</option>`;
  const body = html`
<form method="get" action="/app/runs" class="filters mb-3" aria-label="Filter runs">
  <div class="form-group"><div class="form-group-header"><label for="f-repo">Repository</label></div><div class="form-group-body"><select class="form-select" id="f-repo" name="repo">${option("", filter.repo, "all")}${session.repos.map((r) => option(r, filter.repo))}</select></div></div>
  <div class="form-group"><div class="form-group-header"><label for="f-status">Status</label></div><div class="form-group-body"><select class="form-select" id="f-status" name="status">${option("", filter.status, "any")}${RunStatus.options.map((s) => option(s, filter.status))}</select></div></div>
  <div class="form-group"><div class="form-group-header"><label for="f-source">Source</label></div><div class="form-group-body"><select class="form-select" id="f-source" name="source">${option("", filter.source, "any")}${["github", "dashboard", "slack", "linear", "jira"].map((s) => option(s, filter.source))}</select></div></div>
  <button type="submit" class="btn">Filter</button>
</form>
${
  rows.length === 0
    ? html`<div class="blankslate"><p>No runs yet${filter.repo || filter.status || filter.source ? " match these filters" : ""}. <a href="/app/tasks/new">Start a task</a>.</p></div>`
    : html`<div class="table-wrap"><table class="runs">
<caption class="sr-only">Runs, newest first</caption>
<thead><tr><th scope="col">Run</th><th scope="col">Repository</th><th scope="col">Trigger</th><th scope="col">Model</th><th scope="col">Status</th><th scope="col">Queued</th><th scope="col">Duration</th><th scope="col">Tokens</th><th scope="col">Cost</th><th scope="col">PR</th></tr></thead>
<tbody>
${rows.map(
  (r) => html`<tr>
<td class="run-title"><div><a href="/app/runs/${encodeURIComponent(r.entry.runId)}">${r.entry.title || r.entry.runId}</a><div class="f6 color-fg-muted text-normal">by @${r.entry.requester} · <code>${r.entry.threadId.slice(0, 8)}</code></div></div></td>
<td data-label="Repository">${r.entry.repo}</td>
<td data-label="Trigger" class="optional">${r.entry.trigger} · ${r.entry.source}</td>
<td data-label="Model" class="optional">${r.record ? (r.record.replayed ? "replay" : r.record.modelId) : ""}</td>
<td data-label="Status">${statusBadge(r.entry.status)}${r.entry.approval ? html`<div class="f6">${decisionText(r.entry.approval)} · <a href="/app/runs/${encodeURIComponent(r.entry.approval.resumedRunId)}">resumed run</a></div>` : ""}</td>
<td data-label="Queued">${timeTag(r.entry.queuedAt, now)}</td>
<td data-label="Duration">${runDuration(r)}</td>
<td data-label="Tokens" class="optional">${r.record ? `${r.record.inputTokens} in / ${r.record.outputTokens} out` : ""}</td>
<td data-label="Cost">${r.record ? cost(r.record.costUsd) : "n/a"}</td>
<td data-label="PR">${r.record?.prUrl ? html`<a href="${r.record.prUrl}">PR</a>` : "none"}</td>
</tr>`,
)}
</tbody></table></div>`
}
${nextHref ? html`<p class="mt-3"><a class="btn" href="${nextHref}" rel="next">Older runs</a></p>` : ""}`;
  return layout("Runs", session, body);
}
