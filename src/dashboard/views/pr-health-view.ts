import { html } from "hono/html";
import type { PrHealthResult } from "../pr-health.js";
import type { Html } from "./layout.js";

const STATE_LABEL = { open: "Label--success", draft: "Label--secondary", merged: "Label--done", closed: "Label--danger" } as const;
const MERGE_TEXT = {
  clean: "Ready to merge",
  conflict: "Has conflicts with the base branch",
  blocked: "Blocked (required reviews or checks)",
  behind: "Behind the base branch",
  unstable: "Mergeable, with failing non-required checks",
  unknown: "GitHub is still working out whether it can merge",
} as const;

function link(name: string, url: string | null): Html {
  return url ? html`<a href="${url}">${name}</a>` : html`${name}`;
}

/** The pull request's health: state, mergeability, failing and pending checks, unresolved review threads. */
export function prHealthView(r: PrHealthResult): Html {
  if (!r.ok)
    return html`<section id="pr-health" class="pr-health Box mb-3" aria-label="Pull request"><div class="Box-body color-fg-muted">Pull request health unavailable: ${r.reason}.</div></section>`;
  const h = r.health;
  return html`<section id="pr-health" class="pr-health Box mb-3" aria-labelledby="pr-health-title">
<div class="Box-header pr-head"><h2 id="pr-health-title" class="Box-title"><a href="${h.url}">Pull request #${h.number}</a></h2><span class="Label ${STATE_LABEL[h.state]}" id="pr-state">${h.state}</span></div>
<div class="Box-body"><ul>
<li id="pr-merge" class="${h.merge === "conflict" ? "color-fg-danger" : ""}">${h.merge === "conflict" ? "✗" : h.merge === "clean" ? "✓" : "•"} ${MERGE_TEXT[h.merge]}</li>
<li id="pr-checks">${h.failing.length === 0 && h.pending.length === 0 ? html`✓ ${h.passed} checks passed` : html`${h.failing.length} failing, ${h.pending.length} pending, ${h.passed} passed`}</li>
${h.failing.map((c) => html`<li class="pr-failing ml-3">✗ ${link(c.name, c.url)}</li>`)}
${h.pending.map((c) => html`<li class="pr-pending ml-3">● ${link(c.name, c.url)} (pending)</li>`)}
<li id="pr-threads">${h.unresolved.length === 0 ? "✓ No unresolved review threads" : html`${h.unresolved.length} unresolved review thread${h.unresolved.length === 1 ? "" : "s"}: ${h.unresolved.map((t, i) => html`<a href="${t.url}" class="pr-thread">thread ${i + 1}</a>${i < h.unresolved.length - 1 ? ", " : ""}`)}`}</li>
</ul></div></section>`;
}
