import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { modelRule, vendorModelName } from "../../config/model-table.js";
import type { ModelConfig } from "../../config/model-config.js";
import { OpenSweError } from "../../errors.js";
import { modelProvider } from "./providers/registry.js";
import type { ModelSettings } from "./resolve-model-settings.js";

export interface ChatModelOptions {
  /** Retries inside the vendor SDK before the fallback model takes over. */
  maxRetries?: number;
}

/**
 * Builds the chat model for resolved settings through its provider (src/agent/model/providers/). Fails
 * at once with `model_not_configured` when the provider's key or region is missing, so a run never
 * starts only to die on its first call.
 */
export async function createChatModel(settings: ModelSettings, config: ModelConfig, options: ChatModelOptions = {}): Promise<BaseChatModel> {
  const rule = modelRule(settings.modelId);
  if (!rule) throw new OpenSweError("model_invalid", `unknown model provider in "${settings.modelId}"`);
  return modelProvider(settings.provider).create({
    modelId: settings.modelId,
    name: vendorModelName(settings.modelId),
    rule,
    effort: settings.effort,
    config,
    maxRetries: options.maxRetries ?? 2,
  });
}
