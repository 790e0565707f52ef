import { html } from "hono/html";
import type { RunRecord } from "../../shared/run-record.js";
import type { RunEntry } from "../../store/run-index.js";
import type { ConversationItem, Todo } from "../conversation.js";
import type { Session } from "../session-store.js";
import { csrfField, layout, type Html } from "./layout.js";
import { cost, duration, statusBadge } from "./runs-page.js";

export const isLive = (status: string) => status === "queued" || status === "running";

export function messageView(item: ConversationItem): Html {
  if (item.kind === "tool") {
    return html`<article class="msg tool${item.error ? " error" : ""}"><h3>Tool result · ${item.name}${item.error ? " (error)" : ""}</h3><pre>${item.output}</pre></article>`;
  }
  const who = item.kind === "human" ? "Request" : item.kind === "ai" ? "Agent" : "System";
  return html`<article class="msg ${item.kind}"><h3>${who}</h3>${item.text ? html`<div class="text">${item.text}</div>` : ""}${item.toolCalls.map(
    (c) => html`<details><summary>Tool call · ${c.name}</summary><pre>${c.input}</pre></details>`,
  )}</article>`;
}

export function todosView(todos: Todo[]): Html {
  return todos.length === 0 ? html`<p>No todo list yet.</p>` : html`<ul>${todos.map((t) => html`<li>${t.status === "completed" ? "✔" : t.status === "in_progress" ? "▶" : "○"} ${t.content} <small>(${t.status})</small></li>`)}</ul>`;
}

export function runEndView(entry: RunEntry, record: RunRecord | null): Html {
  if (isLive(entry.status)) return html``;
  return html`<p>Run ended: ${statusBadge(entry.status)}${entry.status === "stopped" ? html` — stopped${entry.stoppedBy ? ` by @${entry.stoppedBy}` : ""}.` : ""}
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
}

export function runPage(session: Session, entry: RunEntry, record: RunRecord | null, items: ConversationItem[], todos: Todo[], extras: RunPageExtras): Html {
  const failure = extras.failure;
  const live = isLive(entry.status);
  const id = encodeURIComponent(entry.runId);
  const body = html`
<dl class="facts">
  <dt>Repository</dt><dd>${entry.repo}</dd>
  <dt>Status</dt><dd><span id="run-status" class="status status-${entry.status}">${entry.status.replace(/_/g, " ")}</span></dd>
  <dt>Requested by</dt><dd>@${entry.requester} (${entry.source}, ${entry.trigger})</dd>
  <dt>Thread</dt><dd><code>${entry.threadId}</code></dd>
  <dt>Sandbox</dt><dd>${extras.sandbox ? html`<code>${extras.sandbox}</code>` : "none yet"}</dd>
  ${live ? html`<dt>So far</dt><dd id="run-usage">${usageView(extras.usage)}</dd>` : ""}
  ${record ? html`<dt>Model</dt><dd>${record.replayed ? "replay (no model was called)" : record.modelId}</dd>
  <dt>Cost</dt><dd>${cost(record.costUsd)} · ${record.inputTokens} tokens in / ${record.outputTokens} out · ${duration(record.durationMs)}</dd>` : ""}
</dl>
<div id="run-end">${runEndView(entry, record)}</div>
${failure ? html`<p role="alert">The run failed: ${failure}</p>` : ""}
${extras.approvalId ? html`<p id="run-approval" role="status">Waiting for approval: <a href="/app/approvals#approval-${extras.approvalId}">decide <code>${extras.approvalId}</code></a>.</p>` : ""}
${live
  ? html`<div id="controls">
<form method="post" action="/app/runs/${id}/stop" class="inline">${csrfField(session)}<button type="submit" class="danger">Stop</button></form>
<form method="post" action="/app/runs/${id}/messages">${csrfField(session)}
<label for="follow-up">Message the running agent</label><textarea id="follow-up" name="text" required maxlength="20000"></textarea>
<button type="submit">Send</button></form>
</div>`
  : ""}
<h2>Todo list</h2>
<div id="todos">${todosView(todos)}</div>
<h2>Conversation</h2>
${extras.conversationHidden ? html`<p id="conversation-hidden" role="status">This run's thread has since been another repository's, so its conversation is not shown here.</p>` : ""}
<div id="conversation" aria-live="polite">${items.map(messageView)}</div>
${live ? html`<div id="live" data-events="/app/runs/${id}/events?from=${items.length}"></div><script src="/app/static/live.js" defer></script>` : ""}`;
  return layout(entry.title || "Run", session, body);
}
