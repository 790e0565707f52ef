import type { ConverseResponse } from "@aws-sdk/client-bedrock-runtime";
import type { WireTurn } from "./turn.js";

/** A Bedrock Converse answer, typed by the AWS SDK's `ConverseResponse` (the JSON it deserialises). */
export function converseResponse(turn: WireTurn): ConverseResponse {
  const u = turn.usage;
  return {
    output: {
      message: {
        role: "assistant",
        content: [
          ...(turn.text ? [{ text: turn.text }] : []),
          ...(turn.toolCall ? [{ toolUse: { toolUseId: turn.toolCall.id, name: turn.toolCall.name, input: turn.toolCall.args as Record<string, never> } }] : []),
        ],
      },
    },
    stopReason: turn.toolCall ? "tool_use" : "end_turn",
    // Converse reports input without the cached part; the cache reads and writes beside it.
    usage: { inputTokens: u.input, outputTokens: u.output, totalTokens: u.input + u.cacheRead + u.cacheWrite + u.output, cacheReadInputTokens: u.cacheRead, cacheWriteInputTokens: u.cacheWrite },
    metrics: { latencyMs: 420 },
  };
}
