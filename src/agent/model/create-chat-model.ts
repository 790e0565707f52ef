import { ChatAnthropic } from "@langchain/anthropic";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatOpenAI } from "@langchain/openai";
import { OpenSweError } from "../../errors.js";
import { THINKING_BUDGET, modelRule, vendorModelName } from "../../config/model-table.js";
import type { ModelConfig } from "../../config/model-config.js";
import { ReplayChatModel, loadReplayScript } from "./replay-chat-model.js";
import type { ModelSettings } from "./resolve-model-settings.js";

export interface ChatModelOptions {
  /** Retries inside the vendor SDK before the fallback model takes over. */
  maxRetries?: number;
}

/**
 * Builds the chat model for resolved settings. Fails at once with `model_not_configured` when the
 * provider's key is missing, so a run never starts only to die on its first call.
 */
export async function createChatModel(settings: ModelSettings, config: ModelConfig, options: ChatModelOptions = {}): Promise<BaseChatModel> {
  const rule = modelRule(settings.modelId);
  const name = vendorModelName(settings.modelId);
  const maxRetries = options.maxRetries ?? 2;
  switch (settings.provider) {
    case "replay":
      return new ReplayChatModel(await loadReplayScript(name), name);
    case "anthropic": {
      if (!config.anthropicApiKey) {
        throw new OpenSweError("model_not_configured", `model ${settings.modelId} needs ANTHROPIC_API_KEY, which is not set`);
      }
      const maxTokens = rule?.maxTokens ?? 16_000;
      // Streaming: the SDK refuses non-streaming calls whose max_tokens could run past 10 minutes (> ~21k).
      const common = { model: name, apiKey: config.anthropicApiKey, maxRetries, maxTokens, streaming: true, ...(config.anthropicApiUrl ? { anthropicApiUrl: config.anthropicApiUrl } : {}) };
      if (rule?.mode === "adaptive" && settings.effort !== "none") {
        return new ChatAnthropic({ ...common, thinking: { type: "adaptive" }, outputConfig: { effort: settings.effort } });
      }
      if (rule?.mode === "budget" && settings.effort !== "none") {
        const budget = THINKING_BUDGET[settings.effort];
        return new ChatAnthropic({ ...common, maxTokens: Math.max(maxTokens, budget + 4_096), thinking: { type: "enabled", budget_tokens: budget } });
      }
      return new ChatAnthropic(common);
    }
    case "openai": {
      if (!config.openaiApiKey) {
        throw new OpenSweError("model_not_configured", `model ${settings.modelId} needs OPENAI_API_KEY (and OPENAI_BASE_URL for a self-hosted endpoint), which is not set`);
      }
      const reasoning = rule?.mode === "openai-reasoning" && settings.effort !== "none" ? { reasoning: { effort: settings.effort as "low" | "medium" | "high" } } : {};
      return new ChatOpenAI({
        model: name,
        apiKey: config.openaiApiKey,
        maxRetries,
        ...(config.openaiBaseUrl ? { configuration: { baseURL: config.openaiBaseUrl } } : {}),
        ...reasoning,
      });
    }
  }
}
