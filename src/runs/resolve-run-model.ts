import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { createChatModel } from "../agent/model/create-chat-model.js";
import { fallbackModelSettings } from "../agent/model/fallback-model-settings.js";
import type { ModelConfig } from "../config/model-config.js";
import { resolveModelSettings, type ModelSettings } from "../agent/model/resolve-model-settings.js";
import type { RepoConfig } from "../config/repo-config.js";
import { OpenSweError } from "../errors.js";
import type { Profile, TeamModels } from "../store/settings-store.js";

export interface RunModel {
  settings: ModelSettings;
  model: BaseChatModel;
  fallback?: BaseChatModel;
  fallbackModelId?: string;
  /** Why the fallback was not set up (its provider has no key), for the run log. */
  fallbackSkipped?: string;
}

/**
 * Per-thread > per-user profile > team default (the repo's config, then the operator's team setting) >
 * deployment (`OPEN_SWE_MODEL`) > built-in. Throws the model layer's typed error when the key is missing.
 */
export async function resolveRunModel(input: {
  role: "agent" | "reviewer";
  profile: Profile;
  team: TeamModels;
  repoConfig: RepoConfig;
  config: ModelConfig;
  thread?: { modelId?: string; effort?: string };
}): Promise<RunModel> {
  const repoModel = input.role === "agent" ? (input.repoConfig.agent.model ?? input.repoConfig.model) : (input.repoConfig.review.model ?? input.repoConfig.model);
  const settings = resolveModelSettings({
    thread: input.thread,
    profile: { modelId: input.profile.model, effort: input.profile.effort },
    teamDefault: { modelId: repoModel ?? input.team[input.role] },
    deployment: { modelId: input.config.model, effort: input.config.effort },
  });
  const model = await createChatModel(settings, input.config);
  const fb = fallbackModelSettings(settings, input.config);
  if (!fb) return { settings, model };
  try {
    return { settings, model, fallback: await createChatModel(fb, input.config), fallbackModelId: fb.modelId };
  } catch (err) {
    // A fallback whose provider has no key is skipped (the run still has its primary); anything else is a bug.
    if (err instanceof OpenSweError && err.code === "model_not_configured") return { settings, model, fallbackSkipped: err.message };
    throw err;
  }
}
