import { resolve } from "node:path";
import { z } from "zod";
import { OpenSweError } from "../errors.js";
import { checkModelId } from "./check-model-id.js";
import { envRefusal, httpUrl } from "./env-refusal.js";
import { canonicalModelId, providerOf } from "./model-table.js";
import { awsCredentialSource, providerRequirement, type CloudModelConfig } from "./provider-requirements.js";
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
  AWS_REGION: optionalString,
  AWS_DEFAULT_REGION: optionalString,
  AWS_ACCESS_KEY_ID: optionalString,
  AWS_SECRET_ACCESS_KEY: optionalString,
  AWS_SESSION_TOKEN: optionalString,
  AZURE_OPENAI_ENDPOINT: optionalString.pipe(httpUrl("https://my-resource.openai.azure.com").optional()),
  AZURE_OPENAI_API_KEY: optionalString,
  AZURE_OPENAI_API_VERSION: optionalString,
  GOOGLE_CLOUD_PROJECT: optionalString,
  GOOGLE_CLOUD_LOCATION: optionalString,
  GOOGLE_APPLICATION_CREDENTIALS: optionalString,
  GEMINI_API_KEY: optionalString,
  GOOGLE_API_KEY: optionalString,
});

/** Everything the model layer needs from the environment, read once. */
export interface ModelConfig extends CloudModelConfig {
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
function checkModels(env: Record<string, string | undefined>, cwd: string, cloud: CloudModelConfig): void {
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
    // A cloud model the deployment chose must be reachable: its region and credentials, named in one line.
    const provider = providerOf(id);
    const missing = provider ? providerRequirement(provider, canonicalModelId(id), cloud) : null;
    if (missing) throw new OpenSweError("config_invalid", `invalid ${name}: ${missing}`);
  }
}

function cloudConfig(e: z.infer<typeof ModelEnv>, env: Record<string, string | undefined>): CloudModelConfig {
  const c: CloudModelConfig = {};
  const region = e.AWS_REGION ?? e.AWS_DEFAULT_REGION;
  if (region) c.awsRegion = region;
  if (e.AWS_ACCESS_KEY_ID && e.AWS_SECRET_ACCESS_KEY) {
    c.awsCredentials = { accessKeyId: e.AWS_ACCESS_KEY_ID, secretAccessKey: e.AWS_SECRET_ACCESS_KEY, ...(e.AWS_SESSION_TOKEN ? { sessionToken: e.AWS_SESSION_TOKEN } : {}) };
  }
  const source = awsCredentialSource(env);
  if (source) c.awsCredentialSource = source;
  if (e.AZURE_OPENAI_ENDPOINT) c.azureEndpoint = e.AZURE_OPENAI_ENDPOINT;
  if (e.AZURE_OPENAI_API_KEY) c.azureApiKey = e.AZURE_OPENAI_API_KEY;
  if (e.AZURE_OPENAI_API_VERSION) c.azureApiVersion = e.AZURE_OPENAI_API_VERSION;
  if (e.GOOGLE_CLOUD_PROJECT) c.googleCloudProject = e.GOOGLE_CLOUD_PROJECT;
  if (e.GOOGLE_CLOUD_LOCATION) c.vertexRegion = e.GOOGLE_CLOUD_LOCATION;
  if (e.GOOGLE_APPLICATION_CREDENTIALS) c.googleCredentialsFile = e.GOOGLE_APPLICATION_CREDENTIALS;
  const gemini = e.GEMINI_API_KEY ?? e.GOOGLE_API_KEY;
  if (gemini) c.geminiApiKey = gemini;
  return c;
}

export function readModelConfig(env: Record<string, string | undefined>, cwd = process.cwd()): ModelConfig {
  const parsed = ModelEnv.safeParse(env);
  if (!parsed.success) throw new OpenSweError("config_invalid", envRefusal(parsed.error, env), { cause: parsed.error });
  const e = parsed.data;
  const config: ModelConfig = cloudConfig(e, env);
  checkModels(env, cwd, config);
  if (e.ANTHROPIC_API_KEY) config.anthropicApiKey = e.ANTHROPIC_API_KEY;
  if (e.ANTHROPIC_BASE_URL) config.anthropicApiUrl = e.ANTHROPIC_BASE_URL;
  if (e.OPEN_SWE_MODEL) config.model = e.OPEN_SWE_MODEL;
  if (e.OPEN_SWE_MODEL_EFFORT) config.effort = e.OPEN_SWE_MODEL_EFFORT;
  if (e.OPEN_SWE_FALLBACK_MODEL) config.fallbackModel = e.OPEN_SWE_FALLBACK_MODEL;
  if (e.OPENAI_BASE_URL) config.openaiBaseUrl = e.OPENAI_BASE_URL;
  if (e.OPENAI_API_KEY) config.openaiApiKey = e.OPENAI_API_KEY;
  return config;
}
