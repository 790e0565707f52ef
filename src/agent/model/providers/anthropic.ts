import { ChatAnthropic } from "@langchain/anthropic";
import { OpenSweError } from "../../../errors.js";
import { claudeThinking } from "./anthropic-thinking.js";
import type { ModelProvider } from "./types.js";

/** Anthropic's own API (`anthropic:<model>`), or a proxy of it at `ANTHROPIC_BASE_URL`. */
export const anthropicProvider: ModelProvider<"anthropic"> = {
  id: "anthropic",
  label: "Anthropic API",
  env: ["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"],
  images: true,
  nativeTools: true,
  effortParams: (rule, effort) => {
    const { maxTokens: _, ...params } = claudeThinking(rule, effort);
    return params;
  },
  price: (rule) => rule.price,
  async create({ modelId, name, rule, effort, config, maxRetries }) {
    if (!config.anthropicApiKey) throw new OpenSweError("model_not_configured", `model ${modelId} needs ANTHROPIC_API_KEY, which is not set`);
    const { thinking, output_config, maxTokens } = claudeThinking(rule, effort);
    // Streaming: the SDK refuses non-streaming calls whose max_tokens could run past 10 minutes (> ~21k).
    const common = { model: name, apiKey: config.anthropicApiKey, maxRetries, maxTokens, streaming: true, ...(config.anthropicApiUrl ? { anthropicApiUrl: config.anthropicApiUrl } : {}) };
    if (output_config) return new ChatAnthropic({ ...common, thinking: { type: "adaptive" }, outputConfig: { effort: output_config.effort } });
    if (thinking?.type === "enabled") return new ChatAnthropic({ ...common, thinking: { type: "enabled", budget_tokens: thinking.budget_tokens } });
    return new ChatAnthropic(common);
  },
};
