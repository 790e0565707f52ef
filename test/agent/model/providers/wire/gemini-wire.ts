import { FinishReason, type GenerateContentResponse } from "@google/generative-ai";
import type { WireTurn } from "./turn.js";

/** A Gemini `generateContent` answer, typed by Google's SDK (promptTokenCount includes the cached part). */
export function generateContentResponse(turn: WireTurn): GenerateContentResponse {
  const u = turn.usage;
  const prompt = u.input + u.cacheRead;
  return {
    candidates: [
      {
        index: 0,
        content: {
          role: "model",
          parts: [...(turn.text ? [{ text: turn.text }] : []), ...(turn.toolCall ? [{ functionCall: { name: turn.toolCall.name, args: turn.toolCall.args } }] : [])],
        },
        finishReason: FinishReason.STOP,
      },
    ],
    usageMetadata: { promptTokenCount: prompt, candidatesTokenCount: u.output, totalTokenCount: prompt + u.output, cachedContentTokenCount: u.cacheRead },
  };
}
