import { html } from "hono/html";
import type { PendingApproval } from "../../approvals/approval-store.js";
import type { Session } from "../session-store.js";
import { csrfField, layout, type Html } from "./layout.js";

/** Pure: "just now", "12 min", "3 h 5 min", "2 d". */
export function ageText(ms: number): string {
  const min = Math.floor(Math.max(0, ms) / 60_000);
  if (min < 1) return "just now";
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 24) return min % 60 ? `${h} h ${min % 60} min` : `${h} h`;
  return `${Math.floor(h / 24)} d`;
}

function approvalView(session: Session, a: PendingApproval, now: number): Html {
  const id = encodeURIComponent(a.id);
  return html`<section class="approval" id="approval-${a.id}" aria-labelledby="approval-${a.id}-title">
<h2 id="approval-${a.id}-title"><code>${a.id}</code> · ${a.job.owner}/${a.job.repo} · ${a.calls.map((c) => c.name).join(", ")}</h2>
<dl class="facts">
  <dt>Requested by</dt><dd>@${a.job.requester.login}</dd>
  <dt>Waiting</dt><dd>${ageText(now - a.requestedAt)}</dd>
  <dt>Run</dt><dd>${a.runId ? html`<a href="/app/runs/${encodeURIComponent(a.runId)}">the paused run</a>` : "—"}</dd>
</dl>
${a.calls.map((c) => html`<p>Tool <code>${c.name}</code> with:</p><pre>${c.preview}</pre>`)}
<form method="post" action="/app/approvals/${id}/approve" class="inline">${csrfField(session)}<button type="submit">Approve</button></form>
<form method="post" action="/app/approvals/${id}/deny">${csrfField(session)}
<label for="reason-${a.id}">Reason (optional)</label><input id="reason-${a.id}" name="reason" maxlength="500">
<button type="submit" class="danger">Deny</button></form>
</section>`;
}

/** Pending approvals the viewer may decide, oldest first. */
export function approvalsPage(session: Session, pending: PendingApproval[], now = Date.now()): Html {
  const body = pending.length === 0 ? html`<p>No run is waiting for approval in the repositories you can write to.</p>` : pending.map((a) => approvalView(session, a, now));
  return layout("Approvals", session, body);
}
