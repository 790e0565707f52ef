import { html } from "hono/html";
import type { PendingApproval } from "../../threads/approvals.js";
import type { Session } from "../session-store.js";
import { timeTag } from "./badges.js";
import { csrfField, layout, type Html } from "./layout.js";

function approvalView(session: Session, a: PendingApproval, now: number): Html {
  const id = encodeURIComponent(a.id);
  return html`<section class="Box mb-3 approval" id="approval-${a.id}" aria-labelledby="approval-${a.id}-title">
<div class="Box-header"><h2 class="Box-title" id="approval-${a.id}-title"><code>${a.id}</code> · ${a.job.owner}/${a.job.repo} · ${a.calls.map((c) => c.name).join(", ")}</h2></div>
<div class="Box-body">
<dl class="facts">
  <dt>Requested by</dt><dd>@${a.job.requester.login}</dd>
  <dt>Asked</dt><dd>${timeTag(a.requestedAt, now)}</dd>
  <dt>Run</dt><dd>${a.runId ? html`<a href="/app/runs/${encodeURIComponent(a.runId)}">the paused run</a>` : "—"}</dd>
</dl>
${a.calls.map((c) => html`<p>Tool <code>${c.name}</code> with:</p><pre class="preview color-bg-subtle p-2 rounded-2">${c.preview}</pre>`)}
<div class="d-flex flex-wrap flex-items-end mt-3 actions">
<form method="post" action="/app/approvals/${id}/approve">${csrfField(session)}<button type="submit" class="btn btn-primary">Approve</button></form>
<form method="post" action="/app/approvals/${id}/deny" class="d-flex flex-wrap flex-items-end actions flex-auto">${csrfField(session)}
<div class="form-group m-0"><div class="form-group-header"><label for="reason-${a.id}">Reason (optional)</label></div><div class="form-group-body"><input class="form-control" id="reason-${a.id}" name="reason" maxlength="500"></div></div>
<button type="submit" class="btn btn-danger">Deny</button></form>
</div>
</div>
</section>`;
}

/** Pending approvals the viewer may decide, oldest first. */
export function approvalsPage(session: Session, pending: PendingApproval[], now = Date.now()): Html {
  const body =
    pending.length === 0 ? html`<div class="blankslate"><p>No run is waiting for approval in the repositories you can write to.</p></div>` : pending.map((a) => approvalView(session, a, now));
  return layout("Approvals", session, body);
}
