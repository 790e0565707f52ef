import type { ChatCompletion, ChatCompletionChunk } from "openai/resources/chat/completions";
import type { WireTurn } from "./turn.js";

function usageOf(turn: WireTurn): NonNullable<ChatCompletion["usage"]> {
  const prompt = turn.usage.input + turn.usage.cacheRead;
  return { prompt_tokens: prompt, completion_tokens: turn.usage.output, total_tokens: prompt + turn.usage.output, prompt_tokens_details: { cached_tokens: turn.usage.cacheRead } };
}

/** A Chat Completions answer (OpenAI, Azure OpenAI, an OpenAI-compatible server), typed by the `openai` package. */
export function chatCompletion(turn: WireTurn, model: string): ChatCompletion {
  return {
    id: `chatcmpl-${turn.toolCall?.id ?? "text"}`,
    object: "chat.completion",
    created: 1_765_000_000,
    model,
    choices: [
      {
        index: 0,
        finish_reason: turn.toolCall ? "tool_calls" : "stop",
        logprobs: null,
        message: {
          role: "assistant",
          content: turn.text ?? null,
          refusal: null,
          ...(turn.toolCall ? { tool_calls: [{ id: turn.toolCall.id, type: "function" as const, function: { name: turn.toolCall.name, arguments: JSON.stringify(turn.toolCall.args) } }] } : {}),
        },
      },
    ],
    usage: usageOf(turn),
  };
}

/** The same answer streamed (`stream: true`): server-sent chunks, the usage in a last chunk, then `[DONE]`. */
export function chatCompletionStream(turn: WireTurn, model: string): string {
  const base = { id: `chatcmpl-${turn.toolCall?.id ?? "text"}`, object: "chat.completion.chunk" as const, created: 1_765_000_000, model };
  const chunks: ChatCompletionChunk[] = [{ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] }];
  if (turn.text) {
    // Two pieces, as a server sends tokens as they come.
    const half = Math.ceil(turn.text.length / 2);
    for (const piece of [turn.text.slice(0, half), turn.text.slice(half)]) chunks.push({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
  }
  if (turn.toolCall) {
    const args = JSON.stringify(turn.toolCall.args);
    chunks.push({
      ...base,
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: turn.toolCall.id, type: "function", function: { name: turn.toolCall.name, arguments: "" } }] }, finish_reason: null }],
    });
    chunks.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: args } }] }, finish_reason: null }] });
  }
  chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: turn.toolCall ? "tool_calls" : "stop" }] });
  chunks.push({ ...base, choices: [], usage: usageOf(turn) });
  return `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("")}data: [DONE]\n\n`;
}
