import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { OpenSweError } from "../../errors.js";
import { createChatModel, type ChatModelOptions } from "./create-chat-model.js";
import { fallbackModelSettings } from "./fallback-model-settings.js";
import type { ModelConfig } from "./read-model-config.js";
import { resolveModelSettings, type ModelChoice, type ModelSettings } from "./resolve-model-settings.js";

export interface RunModel {
  settings: ModelSettings;
  model: BaseChatModel;
  fallback?: { settings: ModelSettings; model: BaseChatModel };
  /** Why a fallback was not set up, for the run log. */
  fallbackSkipped?: string;
}

export interface RunModelChoices {
  thread?: ModelChoice | undefined;
  profile?: ModelChoice | undefined;
  teamDefault?: ModelChoice | undefined;
}

/**
 * Everything model-related a run needs, resolved once at its start: settings by precedence, the
 * primary model (throws `model_not_configured` right away), and the overload fallback when its
 * provider is configured too.
 */
export async function createRunModel(choices: RunModelChoices, config: ModelConfig, options: ChatModelOptions = {}): Promise<RunModel> {
  const settings = resolveModelSettings({ ...choices, deployment: { modelId: config.model, effort: config.effort } });
  const model = await createChatModel(settings, config, options);
  const fallbackSettings = fallbackModelSettings(settings, config);
  if (!fallbackSettings) return { settings, model };
  try {
    return { settings, model, fallback: { settings: fallbackSettings, model: await createChatModel(fallbackSettings, config, options) } };
  } catch (err) {
    if (err instanceof OpenSweError && err.code === "model_not_configured") return { settings, model, fallbackSkipped: err.message };
    throw err;
  }
}
