import { ChatOpenAI } from "@langchain/openai";
import type { Effort, ModelRule } from "../../../config/model-table.js";
import { OpenSweError } from "../../../errors.js";
import type { ModelProvider } from "./types.js";

/** OpenAI's `reasoning.effort` for a reasoning model; nothing for one without it. */
export function openaiReasoning(rule: ModelRule, effort: Effort): { reasoning?: { effort: "low" | "medium" | "high" } } {
  return rule.mode === "openai-reasoning" && effort !== "none" ? { reasoning: { effort: effort as "low" | "medium" | "high" } } : {};
}

/** OpenAI's API, or any server that speaks it at `OPENAI_BASE_URL` (`openai:<model>`). */
export const openaiProvider: ModelProvider<"openai"> = {
  id: "openai",
  label: "OpenAI API (or an OpenAI-compatible server)",
  env: ["OPENAI_API_KEY", "OPENAI_BASE_URL"],
  images: true,
  nativeTools: true,
  effortParams: openaiReasoning,
  price: (rule) => rule.price,
  async create({ modelId, name, rule, effort, config, maxRetries }) {
    if (!config.openaiApiKey) {
      throw new OpenSweError("model_not_configured", `model ${modelId} needs OPENAI_API_KEY (and OPENAI_BASE_URL for a self-hosted endpoint), which is not set`);
    }
    return new ChatOpenAI({
      model: name,
      apiKey: config.openaiApiKey,
      maxRetries,
      ...(config.openaiBaseUrl ? { configuration: { baseURL: config.openaiBaseUrl } } : {}),
      ...openaiReasoning(rule, effort),
    });
  },
};
