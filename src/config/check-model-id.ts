import { canonicalModelId, MODEL_RULES, OPEN_PROVIDERS } from "./model-table.js";

/**
 * A model id an operator or a user may choose: a model of the table (a dated snapshot of one too), or an
 * explicit `openai:<name>` (a self-hosted OpenAI-compatible endpoint), `bedrock:<model id or inference
 * profile>`, `azure:<deployment>`, `vertex:<model>` or `gemini:<model>` — a bare unknown name (`gpt-4o`)
 * is refused rather than guessed to be OpenAI's. Returns the refusal, echoing the value and listing the
 * known ids, or null. `replay:` files are for OPEN_SWE_MODEL only.
 */
export function checkModelId(id: string): string | null {
  const canonical = canonicalModelId(id);
  const prefix = OPEN_PROVIDERS.find((p) => id.trim().startsWith(`${p}:`));
  if (prefix && canonical.length > prefix.length + 1) return null;
  if (canonical.startsWith("replay:")) return `"${id}" is a replay file: set it as OPEN_SWE_MODEL (a deployment default), not as a chosen model`;
  const undated = canonical.replace(/-\d{8}$/, "");
  if (MODEL_RULES[canonical] || MODEL_RULES[undated]) return null;
  const known = Object.keys(MODEL_RULES).map((k) => k.replace(/^anthropic:/, "").replace(/^openai:/, ""));
  return `unknown model "${id}": one of ${known.join(", ")}, bedrock:<model id or inference profile>, azure:<deployment>, vertex:<model>, gemini:<model>, or openai:<name> for an OpenAI-compatible endpoint`;
}
