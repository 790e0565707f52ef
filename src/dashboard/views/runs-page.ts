import { html } from "hono/html";
import type { RunRecord } from "../../shared/run-record.js";
import { RunStatus, type RunEntry } from "../../store/run-index.js";
import type { Session } from "../session-store.js";
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

export function statusBadge(status: string): Html {
  return html`<span class="status status-${status}">${status.replace(/_/g, " ")}</span>`;
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

export function runsPage(session: Session, rows: RunRow[], filter: RunsFilterValues, nextHref: string | null): Html {
  const option = (value: string, current: string | undefined, label = value) => html`<option value="${value}" ${value === (current ?? "") ? "selected" : ""}>${label}</option>`;
  const body = html`
<form method="get" action="/app/runs" class="filters" aria-label="Filter runs">
  <div><label for="f-repo">Repository</label><select id="f-repo" name="repo">${option("", filter.repo, "all")}${session.repos.map((r) => option(r, filter.repo))}</select></div>
  <div><label for="f-status">Status</label><select id="f-status" name="status">${option("", filter.status, "any")}${RunStatus.options.map((s) => option(s, filter.status))}</select></div>
  <div><label for="f-source">Source</label><select id="f-source" name="source">${option("", filter.source, "any")}${["github", "dashboard", "slack", "linear", "jira"].map((s) => option(s, filter.source))}</select></div>
  <button type="submit">Filter</button>
</form>
${rows.length === 0
  ? html`<p>No runs yet${filter.repo || filter.status || filter.source ? " match these filters" : ""}. <a href="/app/tasks/new">Start a task</a>.</p>`
  : html`<div class="table"><table>
<caption class="skip">Runs, newest first</caption>
<thead><tr><th scope="col">Run</th><th scope="col">Repository</th><th scope="col">Thread</th><th scope="col">Trigger</th><th scope="col">Source</th><th scope="col">Model</th><th scope="col">Status</th><th scope="col">Duration</th><th scope="col">Tokens</th><th scope="col">Cost</th><th scope="col">PR</th></tr></thead>
<tbody>
${rows.map(
  (r) => html`<tr>
<td><a href="/app/runs/${encodeURIComponent(r.entry.runId)}">${r.entry.title || r.entry.runId}</a><br><small>by @${r.entry.requester}</small></td>
<td>${r.entry.repo}</td>
<td><code>${r.entry.threadId.slice(0, 8)}</code></td>
<td>${r.entry.trigger}</td>
<td>${r.entry.source}</td>
<td>${r.record ? (r.record.replayed ? "replay" : r.record.modelId) : ""}</td>
<td>${statusBadge(r.entry.status)}${r.entry.approval ? html`<br><small>${decisionText(r.entry.approval)} · <a href="/app/runs/${encodeURIComponent(r.entry.approval.resumedRunId)}">resumed run</a></small>` : ""}</td>
<td>${runDuration(r)}</td>
<td>${r.record ? `${r.record.inputTokens} in / ${r.record.outputTokens} out` : ""}</td>
<td>${r.record ? cost(r.record.costUsd) : ""}</td>
<td>${r.record?.prUrl ? html`<a href="${r.record.prUrl}">PR</a>` : ""}</td>
</tr>`,
)}
</tbody></table></div>`}
${nextHref ? html`<p><a href="${nextHref}" rel="next">Older runs</a></p>` : ""}`;
  return layout("Runs", session, body);
}
