import { html } from "hono/html";
import { conversationItems } from "../conversation.js";
import type { SubagentRun } from "../subagents.js";
import { messageView } from "./conversation-view.js";
import type { Html } from "./layout.js";

/** The subagents the run started: each collapsed, its messages shown as the main conversation's are. */
export function subagentsView(runId: string, subagents: readonly SubagentRun[]): Html {
  if (subagents.length === 0) return html``;
  return html`<section id="subagents" aria-labelledby="subagents-title"><h2 id="subagents-title" class="h4 mb-2">Subagents</h2>${subagents.map(
    (s, k) =>
      html`<details id="subagent-${k}" class="subagent Box mb-2"><summary><span class="text-bold">Subagent · <code>${s.agent}</code></span> — ${s.description.length > 120 ? `${s.description.slice(0, 120)}…` : s.description} <span class="f6 color-fg-muted">(${s.messages.length} messages)</span></summary><div class="subagent-body">${conversationItems(s.messages).map((item, n) => messageView(item, { runId, n, time: null, subagent: k }))}</div></details>`,
  )}</section>`;
}
