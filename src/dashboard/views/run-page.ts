import { html } from "hono/html";
import type { RunRecord } from "../../shared/run-record.js";
import type { RunEntry } from "../../store/run-index.js";
import type { ConversationItem, Todo } from "../conversation.js";
import type { Session } from "../session-store.js";
import { csrfField, layout, type Html } from "./layout.js";
import { statusBadge, timeTag } from "./badges.js";
import { cost, decisionText, duration } from "./runs-page.js";
import { stoppedWorkNote } from "../../threads/thread-stop.js";
import type { StepTime } from "../../store/run-feed.js";
import { messageView, timeView } from "./conversation-view.js";

export const isLive = (status: string) => status === "queued" || status === "running";

export function todosView(todos: Todo[]): Html {
  return todos.length === 0
    ? html`<p class="color-fg-muted">No todo list yet.</p>`
    : html`<ul>${todos.map((t) => html`<li>${t.status === "completed" ? "✔" : t.status === "in_progress" ? "▶" : "○"} ${t.content} <span class="f6 color-fg-muted">(${t.status})</span></li>`)}</ul>`;
}

export function runEndView(entry: RunEntry, record: RunRecord | null): Html {
  if (isLive(entry.status)) return html``;
  return html`<p>Run ended: ${statusBadge(entry.status)}${entry.status === "stopped" ? html` — <span id="run-stopped">${stoppedWorkNote({ by: entry.stoppedBy ?? null, dropped: entry.droppedFollowUps ?? 0 }).replace(/^Stopped/, "stopped")}</span>` : ""}
${record?.prUrl ? html` Pull request: <a href="${record.prUrl}" id="pr-link">${record.prUrl}</a>` : ""}</p>`;
}

export function usageView(u: { inputTokens: number; outputTokens: number; costUsd?: number }): string {
  return `${u.inputTokens} tokens in / ${u.outputTokens} out · ${cost(u.costUsd)}`;
}

export interface RunPageExtras {
  failure?: string | undefined;
  sandbox?: string | null;
  usage: { inputTokens: number; outputTokens: number; costUsd?: number };
  /** The approval a paused run waits on. */
  approvalId?: string | null;
  /** The run's thread now belongs to another repository: its conversation is not shown. */
  conversationHidden?: boolean;
  /** Each message's start and end, from the thread's live feed. */
  times?: (StepTime | null)[];
  /** The pull request's health, rendered (`pr-health-view.ts`). */
  prHealth?: Html;
  /** The diff the run pushed (`diff-view.ts`). */
  diff?: Html;
  /** The subagents the run started, each with its conversation (`subagents-view.ts`). */
  subagents?: Html;
}

/** The run's conversation, each message with its place (for "show all") and time. */
export function messagesView(runId: string, items: ConversationItem[], times: readonly (StepTime | null)[], from = 0): Html[] {
  return items.slice(from).map((item, i) => messageView(item, { runId, n: from + i, time: times[from + i] ?? null }));
}

export function runPage(session: Session, entry: RunEntry, record: RunRecord | null, items: ConversationItem[], todos: Todo[], extras: RunPageExtras, now = Date.now()): Html {
  const failure = extras.failure;
  const live = isLive(entry.status);
  const id = encodeURIComponent(entry.runId);
  const body = html`
<section class="Box mb-3" aria-labelledby="request-title"><div class="Box-header"><h2 id="request-title" class="Box-title">Request</h2></div><div class="Box-body request" id="run-request">${entry.request ?? entry.title}</div></section>
<dl class="facts">
  <dt>Repository</dt><dd>${entry.repo}</dd>
  <dt>Status</dt><dd>${statusBadge(entry.status, "run-status")}</dd>
  <dt>Queued</dt><dd>${timeTag(entry.queuedAt, now)}</dd>
  ${entry.startedAt ? html`<dt>Started</dt><dd>${timeTag(entry.startedAt, now)}${entry.finishedAt ? html` · ran ${duration(entry.finishedAt - entry.startedAt)}` : ""}</dd>` : ""}
  <dt>Requested by</dt><dd>@${entry.requester} (${entry.source}, ${entry.trigger})</dd>
  <dt>Thread</dt><dd><code>${entry.threadId}</code></dd>
  <dt>Sandbox</dt><dd>${extras.sandbox ? html`<code>${extras.sandbox}</code>` : "none yet"}</dd>
  ${live ? html`<dt>So far</dt><dd id="run-usage">${usageView(extras.usage)}</dd>` : ""}
  ${
    record
      ? html`<dt>Model</dt><dd>${record.replayed ? "replay (no model was called)" : record.modelId}</dd>
  <dt>Cost</dt><dd>${cost(record.costUsd)} · ${record.inputTokens} tokens in / ${record.outputTokens} out · ${duration(record.durationMs)}</dd>`
      : ""
  }
</dl>
${entry.crashResumedAt ? html`<p id="run-crash-resumed" class="flash flash-warn mb-3" role="status">The worker running this run stopped; another attempt resumed it from its last step ${timeView({ end: entry.crashResumedAt })}.</p>` : ""}
<div id="run-end">${runEndView(entry, record)}</div>
${extras.prHealth ?? ""}
${extras.diff ?? ""}
${failure ? html`<div class="flash flash-error mb-3" role="alert">The run failed: ${failure}</div>` : ""}
${entry.approval ? html`<p id="run-approval" class="flash mb-3" role="status">${decisionText(entry.approval)} at <time datetime="${new Date(entry.approval.at).toISOString()}">${new Date(entry.approval.at).toISOString().replace("T", " ").slice(0, 19)} UTC</time>; <a href="/app/runs/${encodeURIComponent(entry.approval.resumedRunId)}" id="resumed-run">the run resumed</a>.</p>` : ""}
${entry.resumes ? html`<p id="run-resumes" class="mb-3">Resumes <a href="/app/runs/${encodeURIComponent(entry.resumes)}">the run that paused for approval</a>.</p>` : ""}
${extras.approvalId ? html`<p id="run-approval" class="flash flash-warn mb-3" role="status">Waiting for approval: <a href="/app/approvals#approval-${extras.approvalId}">decide <code>${extras.approvalId}</code></a>.</p>` : ""}
${
  live
    ? html`<div id="controls" class="mb-4">
<form method="post" action="/app/runs/${id}/stop" class="mb-3">${csrfField(session)}<button type="submit" class="btn btn-danger">Stop</button></form>
<form method="post" action="/app/runs/${id}/messages">${csrfField(session)}
<div class="form-group"><div class="form-group-header"><label for="follow-up">Message the running agent</label></div><div class="form-group-body"><textarea class="form-control" id="follow-up" name="text" required maxlength="20000"></textarea></div></div>
<button type="submit" class="btn btn-primary">Send</button></form>
</div>`
    : ""
}
<h2 class="h4 mb-2">Todo list</h2>
<div id="todos">${todosView(todos)}</div>
<h2 class="h4 mb-2">Conversation</h2>
${extras.conversationHidden ? html`<p id="conversation-hidden" class="flash flash-warn mb-3" role="status">This run's thread has since been another repository's, so its conversation is not shown here.</p>` : ""}
<div id="conversation" aria-live="polite">${messagesView(entry.runId, items, extras.times ?? [])}</div>
${extras.subagents ?? ""}
${live ? html`<div id="live" data-events="/app/runs/${id}/events?from=${items.length}"></div><script src="/app/static/live.js" defer></script>` : ""}`;
  return layout(entry.title || "Run", session, body);
}
