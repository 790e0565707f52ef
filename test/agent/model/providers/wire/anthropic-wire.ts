import type { RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import type { WireTurn } from "./turn.js";

/** A Messages API streaming answer (Anthropic's API and Claude on Vertex), each event typed by Anthropic's SDK. */
export function anthropicStream(turn: WireTurn, model: string): string {
  const blocks: RawMessageStreamEvent[] = [];
  let index = 0;
  if (turn.text) {
    blocks.push({ type: "content_block_start", index, content_block: { type: "text", text: "", citations: null } });
    blocks.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: turn.text } });
    blocks.push({ type: "content_block_stop", index });
    index += 1;
  }
  if (turn.toolCall) {
    blocks.push({ type: "content_block_start", index, content_block: { type: "tool_use", id: turn.toolCall.id, name: turn.toolCall.name, input: {}, caller: { type: "direct" } } });
    blocks.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(turn.toolCall.args) } });
    blocks.push({ type: "content_block_stop", index });
  }
  const u = turn.usage;
  const events: RawMessageStreamEvent[] = [
    {
      type: "message_start",
      message: {
        id: `msg_${turn.toolCall?.id ?? "text"}`,
        type: "message",
        role: "assistant",
        model,
        content: [],
        container: null,
        diagnostics: null,
        stop_details: null,
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: u.input,
          cache_read_input_tokens: u.cacheRead,
          cache_creation_input_tokens: u.cacheWrite,
          cache_creation: null,
          inference_geo: null,
          // The delta's count is the turn's total (LangChain adds the two).
          output_tokens: 0,
          output_tokens_details: null,
          server_tool_use: null,
          service_tier: "standard",
          speed: null,
        },
      },
    },
    ...blocks,
    {
      type: "message_delta",
      delta: { stop_reason: turn.toolCall ? "tool_use" : "end_turn", stop_sequence: null, container: null, stop_details: null },
      usage: { output_tokens: u.output, input_tokens: null, cache_creation_input_tokens: null, cache_read_input_tokens: null, output_tokens_details: null, server_tool_use: null },
    },
    { type: "message_stop" },
  ];
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
}
