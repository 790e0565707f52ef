import { canonicalModelId, modelRule } from "../../config/model-table.js";
import type { ModelConfig } from "../../config/model-config.js";
import { resolveModelSettings, type ModelSettings } from "./resolve-model-settings.js";

/**
 * The model to fall back to on overload/5xx: `OPEN_SWE_FALLBACK_MODEL`, else the primary's default
 * fallback from the model table; none when it would be the primary itself or the run is replayed.
 */
export function fallbackModelSettings(primary: ModelSettings, config: ModelConfig): ModelSettings | undefined {
  if (primary.provider === "replay") return undefined;
  const id = config.fallbackModel ?? modelRule(primary.modelId)?.defaultFallback;
  if (!id || canonicalModelId(id) === primary.modelId) return undefined;
  return resolveModelSettings({ thread: { modelId: id, effort: primary.effort } });
}
