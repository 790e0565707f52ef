import { html, raw } from "hono/html";
import type { PushedDiff } from "../pushed-diff.js";
import type { Html } from "./layout.js";

const short = (sha: string) => sha.slice(0, 7);

function diffBody(diff: Exclude<PushedDiff, { kind: "none" }>): Html {
  switch (diff.kind) {
    case "missing":
      return html`<p class="Box-body color-fg-muted" id="diff-missing">The pushed commit <code>${short(diff.sha)}</code> is not in this host's mirror of the repository.</p>`;
    case "merged":
      return html`<p class="Box-body color-fg-muted" id="diff-merged">The pushed commit <code>${short(diff.sha)}</code> is on the default branch now, so there is nothing left to compare it with.</p>`;
    case "too_large":
      return html`<p class="Box-body flash-warn" id="diff-too-large">Diff too large to show: ${diff.files} files, ${diff.changedLines} lines changed.</p>`;
    case "shown":
      return html`<div class="Box-body p-0 pushed-diff">${raw(diff.html)}</div>`;
  }
}

/** The diff the run pushed: diff2html's markup (it escapes the file contents), or why it is not shown. */
export function pushedDiffView(diff: PushedDiff): Html {
  if (diff.kind === "none") return html``;
  const head = html`<div class="Box-header"><h2 id="diff-title" class="Box-title">Changes pushed${diff.kind === "missing" || diff.kind === "merged" ? "" : html` <span class="f6 color-fg-muted">(<code>${short(diff.base)}</code>…<code>${short(diff.sha)}</code>)</span>`}</h2></div>`;
  return html`<section class="Box mb-3" id="pushed-diff" aria-labelledby="diff-title">${head}${diffBody(diff)}</section>`;
}
