import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { RedisSaver } from "../agent/checkpoint/redis-saver.js";
import { currentRunMessages } from "../agent/current-run-messages.js";
import { costOfTurns, usageFromMessages } from "../agent/run-record.js";

export const TRUNCATE_AT = 2_000;

/** `cut`: the text was truncated; the page links to the whole of it ("show all"). */
export type ConversationItem =
  | { kind: "human" | "ai" | "system"; text: string; toolCalls: { name: string; input: string; cut: boolean }[] }
  | { kind: "tool"; name: string; output: string; error: boolean; cut: boolean };

export interface Todo {
  content: string;
  status: string;
}

/** Pure: a long tool input or output keeps its head and says how much was cut. */
export function truncate(s: string, max = TRUNCATE_AT): string {
  return s.length <= max ? s : `${s.slice(0, max)}… (${s.length - max} more characters)`;
}

export function textOf(m: BaseMessage): string {
  if (typeof m.content === "string") return m.content;
  return m.content.map((part) => (typeof part === "string" ? part : part.type === "text" && typeof part["text"] === "string" ? part["text"] : "")).join("");
}

/** Pure: a thread's messages as the run page shows them; tool inputs and outputs truncated. */
export function conversationItems(messages: readonly BaseMessage[]): ConversationItem[] {
  return messages.map((m): ConversationItem => {
    if (ToolMessage.isInstance(m)) {
      const output = textOf(m);
      return { kind: "tool", name: m.name ?? "tool", output: truncate(output), error: m.status === "error", cut: output.length > TRUNCATE_AT };
    }
    const type = m.getType();
    const kind = type === "human" ? "human" : type === "ai" ? "ai" : "system";
    const toolCalls = AIMessage.isInstance(m)
      ? (m.tool_calls ?? []).map((c) => {
          const input = JSON.stringify(c.args, null, 2);
          return { name: c.name, input: truncate(input), cut: input.length > TRUNCATE_AT };
        })
      : [];
    return { kind, text: truncate(textOf(m), TRUNCATE_AT * 2), toolCalls };
  });
}

/** Pure: the whole text of message `n` ("show all"): a tool's output, or a message with its tool calls' arguments. */
export function fullText(messages: readonly BaseMessage[], n: number): string | null {
  const m = messages[n];
  if (!m) return null;
  const calls = AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((c) => `\n\n── tool call ${c.name} ──\n${JSON.stringify(c.args, null, 2)}`).join("") : "";
  return textOf(m) + calls;
}

/** Pure: the todo list a `write_todos` call left in the agent's state. */
export function todosOf(values: Record<string, unknown> | undefined): Todo[] {
  const raw = values?.["todos"];
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((t: unknown) => {
    const o = t as { content?: unknown; status?: unknown };
    return typeof o?.content === "string" ? [{ content: o.content, status: typeof o.status === "string" ? o.status : "pending" }] : [];
  });
}

/** The thread's latest checkpoint: its messages and todos (empty before the first step is written). */
export async function readThread(saver: RedisSaver, threadId: string): Promise<{ messages: BaseMessage[]; todos: Todo[] }> {
  const tuple = await saver.getTuple({ configurable: { thread_id: threadId } });
  const values = tuple?.checkpoint.channel_values as Record<string, unknown> | undefined;
  return { messages: (values?.["messages"] as BaseMessage[] | undefined) ?? [], todos: todosOf(values) };
}

/** Pure: the current run's usage so far, priced by the model each turn reports (unknown → no cost). */
export function usageSoFar(messages: readonly BaseMessage[], modelId: string): { inputTokens: number; outputTokens: number; costUsd?: number } {
  const run = currentRunMessages(messages);
  const u = usageFromMessages(run);
  const cost = costOfTurns(run, modelId);
  return { inputTokens: u.inputTokens, outputTokens: u.outputTokens, ...(cost !== undefined ? { costUsd: cost } : {}) };
}
