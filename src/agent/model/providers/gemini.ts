import { ChatGoogleGenerativeAI } from "@langchain/google-genai";
import type { Effort, ModelRule } from "../../../config/model-table.js";
import { providerRequirement } from "../../../config/provider-requirements.js";
import { OpenSweError } from "../../../errors.js";
import type { ModelProvider } from "./types.js";

/** Thinking tokens per effort for Gemini 2.5 (`thinkingConfig.thinkingBudget`; 0 turns it off where the model allows). */
const GEMINI_BUDGET: Readonly<Record<Effort, number>> = { none: 0, low: 1_024, medium: 8_192, high: 24_576, xhigh: 24_576, max: 24_576 };

function geminiThinking(rule: ModelRule, effort: Effort): { thinkingConfig?: { thinkingBudget: number } } {
  return rule.mode === "gemini-thinking" ? { thinkingConfig: { thinkingBudget: GEMINI_BUDGET[effort] } } : {};
}

/** Gemini through Google AI Studio: `gemini:<model>` with `GEMINI_API_KEY`. */
export const geminiProvider: ModelProvider<"gemini"> = {
  id: "gemini",
  label: "Google Gemini (AI Studio)",
  env: ["GEMINI_API_KEY"],
  images: true,
  nativeTools: true,
  effortParams: geminiThinking,
  price: (rule) => rule.price,
  async create({ modelId, name, rule, effort, config, maxRetries }) {
    const missing = providerRequirement("gemini", modelId, config);
    if (missing) throw new OpenSweError("model_not_configured", missing);
    return new ChatGoogleGenerativeAI({
      model: name,
      apiKey: config.geminiApiKey as string,
      maxRetries,
      maxOutputTokens: rule.maxTokens,
      ...geminiThinking(rule, effort),
    });
  },
};
