import { resolve } from "node:path";
import { z } from "zod";
import { OpenSweError } from "../errors.js";
import { checkModelId } from "./check-model-id.js";
import { envRefusal, httpUrl } from "./env-refusal.js";
import { checkReplayScript } from "./replay-script.js";

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

/** The model part of the app's env (`readModelConfig`). */
export const ModelEnv = z.object({
  ANTHROPIC_API_KEY: optionalString,
  ANTHROPIC_BASE_URL: optionalString.pipe(httpUrl("https://api.anthropic.com").optional()),
  OPEN_SWE_MODEL: optionalString,
  OPEN_SWE_MODEL_EFFORT: optionalString,
  OPEN_SWE_FALLBACK_MODEL: optionalString,
  OPENAI_BASE_URL: optionalString.pipe(httpUrl("https://api.openai.com/v1").optional()),
  OPENAI_API_KEY: optionalString,
});

/** Everything the model layer needs from the environment, read once. */
export interface ModelConfig {
  anthropicApiKey?: string;
  anthropicApiUrl?: string;
  /** Deployment default model (`OPEN_SWE_MODEL`); `replay:<file>` forces the replay provider. */
  model?: string;
  effort?: string;
  fallbackModel?: string;
  openaiBaseUrl?: string;
  openaiApiKey?: string;
}

/**
 * The chosen models must exist: OPEN_SWE_MODEL, OPEN_SWE_FALLBACK_MODEL and each of THREAD_MODELS are
 * models of the table (or an explicit `openai:<name>`); a `replay:` OPEN_SWE_MODEL must be a readable
 * replay script (relative to `cwd`). A refusal names the variable and lists the known ids.
 */
function checkModels(env: Record<string, string | undefined>, cwd: string): void {
  const threadModels = (env.THREAD_MODELS ?? "")
    .split(",")
    .map((m) => m.trim())
    .filter(Boolean);
  for (const [name, raw] of [["OPEN_SWE_MODEL", env.OPEN_SWE_MODEL], ["OPEN_SWE_FALLBACK_MODEL", env.OPEN_SWE_FALLBACK_MODEL], ...threadModels.map((m) => ["THREAD_MODELS", m] as const)] as const) {
    const id = raw?.trim();
    if (!id) continue;
    if (name === "OPEN_SWE_MODEL" && id.startsWith("replay:")) {
      try {
        checkReplayScript(resolve(cwd, id.slice("replay:".length)));
      } catch (err) {
        throw new OpenSweError("config_invalid", `invalid OPEN_SWE_MODEL: ${(err as Error).message}`, { cause: err });
      }
      continue;
    }
    const refusal = checkModelId(id);
    if (refusal) throw new OpenSweError("config_invalid", `invalid ${name}: ${refusal}`);
  }
}

export function readModelConfig(env: Record<string, string | undefined>, cwd = process.cwd()): ModelConfig {
  const parsed = ModelEnv.safeParse(env);
  if (!parsed.success) throw new OpenSweError("config_invalid", envRefusal(parsed.error, env), { cause: parsed.error });
  checkModels(env, cwd);
  const e = parsed.data;
  const config: ModelConfig = {};
  if (e.ANTHROPIC_API_KEY) config.anthropicApiKey = e.ANTHROPIC_API_KEY;
  if (e.ANTHROPIC_BASE_URL) config.anthropicApiUrl = e.ANTHROPIC_BASE_URL;
  if (e.OPEN_SWE_MODEL) config.model = e.OPEN_SWE_MODEL;
  if (e.OPEN_SWE_MODEL_EFFORT) config.effort = e.OPEN_SWE_MODEL_EFFORT;
  if (e.OPEN_SWE_FALLBACK_MODEL) config.fallbackModel = e.OPEN_SWE_FALLBACK_MODEL;
  if (e.OPENAI_BASE_URL) config.openaiBaseUrl = e.OPENAI_BASE_URL;
  if (e.OPENAI_API_KEY) config.openaiApiKey = e.OPENAI_API_KEY;
  return config;
}
