import { OpenSweError } from "../../errors.js";
import { BUILTIN_DEFAULT_MODEL, EFFORTS, canonicalModelId, modelRule, type Effort, type Provider } from "../../config/model-table.js";

export interface ModelChoice {
  modelId?: string | undefined;
  effort?: string | undefined;
}

export type SettingsSource = "thread" | "profile" | "team" | "deployment" | "builtin" | "replay";

export interface ModelSettings {
  modelId: string;
  provider: Provider;
  effort: Effort;
  /** Which layer chose the model. */
  source: SettingsSource;
  /** Set when the requested effort was not valid for the model and was clamped. */
  note?: string;
}

export interface ResolveModelInput {
  thread?: ModelChoice | undefined;
  profile?: ModelChoice | undefined;
  teamDefault?: ModelChoice | undefined;
  /** `OPEN_SWE_MODEL` / `OPEN_SWE_MODEL_EFFORT`; a `replay:` model here overrides every layer. */
  deployment?: ModelChoice | undefined;
}

function isEffort(value: string): value is Effort {
  return (EFFORTS as readonly string[]).includes(value);
}

/**
 * Picks model and effort: per-thread > per-user profile > team default > deployment > built-in.
 * Effort comes from the highest layer that sets one and is clamped to what the model accepts.
 */
export function resolveModelSettings(input: ResolveModelInput): ModelSettings {
  const layers: Array<[SettingsSource, ModelChoice | undefined]> = [
    ["thread", input.thread],
    ["profile", input.profile],
    ["team", input.teamDefault],
    ["deployment", input.deployment],
  ];
  const deploymentModel = input.deployment?.modelId?.trim();
  let modelId = BUILTIN_DEFAULT_MODEL;
  let source: SettingsSource = "builtin";
  if (deploymentModel?.startsWith("replay:")) {
    // An operator replaying a recorded run wants every run replayed, whatever profiles say.
    modelId = deploymentModel;
    source = "replay";
  } else {
    for (const [layer, choice] of layers) {
      const id = choice?.modelId?.trim();
      if (id) {
        modelId = canonicalModelId(id);
        source = layer;
        break;
      }
    }
  }
  if (source !== "replay" && modelId.startsWith("replay:")) {
    throw new OpenSweError("model_invalid", `the replay provider is chosen only by OPEN_SWE_MODEL, not by the ${source} setting`);
  }
  const rule = modelRule(modelId);
  if (!rule) throw new OpenSweError("model_invalid", `unknown model provider in "${modelId}": use anthropic:<model> or openai:<model>`);

  const requested = layers.map(([, c]) => c?.effort?.trim().toLowerCase()).find((e) => e !== undefined && e !== "");
  const settings: ModelSettings = { modelId, provider: rule.provider, effort: rule.defaultEffort, source };
  if (requested === undefined) return settings;
  if (!isEffort(requested)) {
    settings.note = `unknown effort "${requested}"; using "${rule.defaultEffort}" for ${modelId}`;
    return settings;
  }
  if (rule.efforts.includes(requested)) {
    settings.effort = requested;
    return settings;
  }
  const below = EFFORTS.slice(0, EFFORTS.indexOf(requested))
    .reverse()
    .find((e) => rule.efforts.includes(e));
  settings.effort = below ?? rule.efforts[0] ?? "none";
  settings.note = `effort "${requested}" is not supported by ${modelId}; using "${settings.effort}"`;
  return settings;
}
