import { html } from "hono/html";
import type { RunStatus } from "../../store/run-index.js";
import type { Html } from "./layout.js";

/** Pure: which Primer Label variant a run status is drawn in. */
export const STATUS_VARIANT: Record<RunStatus, string> = {
  queued: "Label--secondary",
  running: "Label--accent",
  awaiting_approval: "Label--attention",
  pr_opened: "Label--success",
  completed: "Label--done",
  stopped: "Label--danger",
  step_limit: "Label--attention",
  budget_exceeded: "Label--attention",
  incomplete: "Label--attention",
  sandbox_failed: "Label--danger",
  failed: "Label--danger",
};

export function statusClass(status: string): string {
  return `Label ${STATUS_VARIANT[status as RunStatus] ?? "Label--secondary"}`;
}

/** A run status as a Primer Label; `id` for the one the live view updates. */
export function statusBadge(status: string, id?: string): Html {
  return html`<span ${id ? html`id="${id}"` : ""} class="${statusClass(status)}">${status.replace(/_/g, " ")}</span>`;
}

/** Pure: "just now", "12 min", "3 h 5 min", "2 d". */
export function ageText(ms: number): string {
  const min = Math.floor(Math.max(0, ms) / 60_000);
  if (min < 1) return "just now";
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 24) return min % 60 ? `${h} h ${min % 60} min` : `${h} h`;
  return `${Math.floor(h / 24)} d`;
}

/** Pure: the relative text a time is shown with ("just now", "12 min ago"). */
export function relativeText(at: number, now: number): string {
  const age = ageText(now - at);
  return age === "just now" ? age : `${age} ago`;
}

/** A time as server-rendered relative text, the exact UTC time on hover and in `datetime`. */
export function timeTag(at: number, now: number): Html {
  const iso = new Date(at).toISOString();
  return html`<time datetime="${iso}" title="${iso.replace("T", " ").replace(/\.\d{3}Z$/, " UTC")}">${relativeText(at, now)}</time>`;
}
