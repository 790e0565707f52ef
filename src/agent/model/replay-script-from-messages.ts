import { AIMessage, type BaseMessage, type UsageMetadata } from "@langchain/core/messages";
import { isModelCallLimitMessage } from "../middleware/model-call-limit.js";
import { NO_OP_TOOL } from "../middleware/ensure-no-empty-message.js";
import type { ReplayTurn } from "./replay-chat-model.js";

function textOf(message: AIMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content.map((b) => (typeof b === "object" && b !== null && (b as { type?: unknown }).type === "text" ? String((b as { text?: unknown }).text ?? "") : "")).join("");
}

/**
 * Turns a recorded conversation (a thread's checkpointed messages) into a replay script, so a
 * user's run can be reproduced offline with `OPEN_SWE_MODEL=replay:<file>`. Harness-made turns
 * (the no_op nudge's rewrite keeps the model's text; the call-limit stop) are not model turns.
 */
export function replayScriptFromMessages(messages: readonly BaseMessage[]): ReplayTurn[] {
  const turns: ReplayTurn[] = [];
  for (const m of messages) {
    if (!AIMessage.isInstance(m) || isModelCallLimitMessage(m)) continue;
    const calls = (m.tool_calls ?? []).filter((tc) => tc.name !== NO_OP_TOOL);
    const text = textOf(m);
    const turn: ReplayTurn = {
      text: text === "(no message)" ? "" : text,
      tool_calls: calls.map((tc) => ({ name: tc.name, args: tc.args as Record<string, unknown>, ...(tc.id ? { id: tc.id } : {}) })),
    };
    const usage = (m as unknown as { usage_metadata?: UsageMetadata }).usage_metadata;
    if (usage) turn.usage = { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens };
    if (turn.text === "" && turn.tool_calls.length === 0) turn.text = " ";
    turns.push(turn);
  }
  return turns;
}
