export { createChatModel, type ChatModelOptions } from "./create-chat-model.js";
export { fallbackModelSettings } from "./fallback-model-settings.js";
export { BUILTIN_DEFAULT_MODEL, EFFORTS, MODEL_RULES, THINKING_BUDGET, canonicalModelId, modelRule, providerOf, vendorModelName, type Effort, type EffortMode, type ModelPrice, type ModelRule, type Provider } from "./model-table.js";
export { readModelConfig, type ModelConfig } from "./read-model-config.js";
export { ReplayChatModel, ReplayScript, ReplayTurn, loadReplayScript, parseReplayScript } from "./replay-chat-model.js";
export { replayScriptFromMessages } from "./replay-script-from-messages.js";
export { resolveModelSettings, type ModelChoice, type ModelSettings, type ResolveModelInput, type SettingsSource } from "./resolve-model-settings.js";
