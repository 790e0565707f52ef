import type { BaseMessage } from "@langchain/core/messages";

const FIRST_MESSAGE_MAX = 500;
const TITLE_MAX = 200;

const text = (m: BaseMessage): string => (typeof m.content === "string" ? m.content : m.content.map((c) => ("text" in c && typeof c.text === "string" ? c.text : "")).join(""));
const cap = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/**
 * Pure: what seed 004's completion event says about a run beyond its usage — the conversation's size,
 * its title and first user message (truncated), and the subagents it called (by id, in order of first use).
 */
export function completionFacts(request: string, messages: readonly BaseMessage[]): { messageCount: number; title: string; firstUserMessage: string; subagentIds: string[] } {
  const first = request.trim() || (messages.find((m) => m.getType() === "human") ? text(messages.find((m) => m.getType() === "human")!) : "");
  const ids: string[] = [];
  for (const m of messages) {
    for (const call of (m as { tool_calls?: Array<{ name: string; args?: Record<string, unknown> }> }).tool_calls ?? []) {
      const id = call.name === "task" ? call.args?.["subagent_type"] : undefined;
      if (typeof id === "string" && !ids.includes(id)) ids.push(id);
    }
  }
  return { messageCount: messages.length, title: cap(first.split("\n")[0]!.trim(), TITLE_MAX), firstUserMessage: cap(first, FIRST_MESSAGE_MAX), subagentIds: ids };
}
