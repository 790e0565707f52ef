import { html } from "hono/html";
import type { StepTime } from "../../store/run-feed.js";
import type { ConversationItem } from "../conversation.js";
import type { Html } from "./layout.js";

/** Where a message sits: its run (for the "show all" link), its index in the thread, its time if known. */
export interface MessagePlace {
  runId: string;
  n: number;
  time: StepTime | null;
  /** A subagent's conversation: which one of the run's (its "show all" and ids are its own). */
  subagent?: number;
}

const placeId = (place: MessagePlace) => (place.subagent === undefined ? `m-${place.n}` : `sa-${place.subagent}-m-${place.n}`);

/** Pure: a step's duration as Actions shows it: "0.4s", "12s", "2m 5s", "1h 3m". */
export function stepDuration(ms: number): string {
  if (ms < 10_000) return `${(Math.max(0, ms) / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.floor(s / 60)}m ${s % 60}s` : `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

function clock(at: number): Html {
  const iso = new Date(at).toISOString();
  return html`<time datetime="${iso}" title="${iso.replace("T", " ").replace(/\.\d{3}Z$/, " UTC")}">${iso.slice(11, 19)}</time>`;
}

/** "started 12:00:03 · 4.2s" (a step), "at 12:00:01" (a message), nothing when the time is unknown. */
export function timeView(time: StepTime | null): Html {
  if (!time) return html``;
  return time.start === undefined
    ? html`<span class="step-time">at ${clock(time.end)}</span>`
    : html`<span class="step-time">started ${clock(time.start)} · ${stepDuration(time.end - time.start)}</span>`;
}

function showAll(place: MessagePlace, cut: boolean): Html {
  const within = place.subagent === undefined ? "" : `subagents/${place.subagent}/`;
  return cut ? html`<a class="show-all" href="/app/runs/${encodeURIComponent(place.runId)}/${within}messages/${place.n}">show all</a>` : html``;
}

/**
 * One message of the conversation. A tool result and each tool call are collapsed (`<details>`) with
 * their name in the summary; a person's message is the prompt the agent was given (the request as the
 * person wrote it is shown above the conversation), collapsed too.
 */
export function messageView(item: ConversationItem, place: MessagePlace): Html {
  const id = placeId(place);
  if (item.kind === "tool") {
    return html`<details id="${id}" class="msg tool Box mb-2${item.error ? " error color-border-danger" : ""}"><summary class="step"><span class="step-name">${item.error ? "✗" : "✓"} Tool result · <code>${item.name}</code>${item.error ? " (error)" : ""}</span>${timeView(place.time)}</summary><div class="px-3 pb-2"><pre>${item.output}</pre>${showAll(place, item.cut)}</div></details>`;
  }
  if (item.kind === "human") {
    return html`<details id="${id}" class="msg human Box mb-2"><summary class="step"><span class="step-name">Message to the agent</span>${timeView(place.time)}</summary><div class="px-3 pb-2"><div class="text">${item.text}</div></div></details>`;
  }
  const who = item.kind === "ai" ? "Agent" : "System";
  return html`<article id="${id}" class="msg ${item.kind} Box mb-2"><div class="step px-3 py-2"><h3 class="step-name f6">${who}</h3>${timeView(place.time)}</div><div class="px-3 pb-2">${item.text ? html`<div class="text">${item.text}</div>` : ""}${item.toolCalls.map(
    (c) => html`<details class="tool-call"><summary>Tool call · <code>${c.name}</code></summary><pre>${c.input}</pre>${showAll(place, c.cut)}</details>`,
  )}</div></article>`;
}

/** The run page's own styles (served in app.css): steps as rows with their time on the right, like Actions. */
export const RUN_PAGE_CSS = `
.step{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.25rem 1rem;align-items:baseline}
details.msg>summary.step{padding:.5rem 1rem;cursor:pointer;list-style-position:inside}
details.msg>summary.step .step-name{flex:1 1 auto;min-width:0}
.step-name{margin:0;font-weight:600}.step-time{font-size:12px;color:var(--fgColor-muted);white-space:nowrap}
.tool-call{margin:.25rem 0}.tool-call>summary{cursor:pointer}.show-all{font-size:12px}
.request{white-space:pre-wrap}
.pushed-diff .d2h-file-list-wrapper{margin:.5rem 1rem}
.pushed-diff .d2h-code-linenumber,.pushed-diff .line-num1,.pushed-diff .line-num2,.pushed-diff .d2h-code-line,.pushed-diff .d2h-info,.pushed-diff a{color:var(--fgColor-accent)!important}
.pushed-diff .d2h-code-linenumber{background:var(--bgColor-default)!important;border-right:1px solid var(--borderColor-default)}
.pushed-diff .d2h-tag,.pushed-diff .d2h-lines-added,.pushed-diff .d2h-lines-deleted{color:var(--fgColor-default)!important}
.pushed-diff a{color:var(--fgColor-accent)!important}
.pushed-diff .d2h-code-linenumber{background:var(--bgColor-default)!important;border-right:1px solid var(--borderColor-default)}
.pushed-diff .d2h-tag,.pushed-diff .d2h-lines-added,.pushed-diff .d2h-lines-deleted{background:var(--bgColor-default)!important}
.subagent>summary{padding:.5rem 1rem;cursor:pointer}.subagent .subagent-body{padding:0 .5rem .5rem}
.pr-health li a,.show-all{text-decoration:underline}.pr-head{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem}.pr-health ul{list-style:none;padding:0;margin:0}.pr-health li{padding:.15rem 0}
`;
