import { canonicalModelId, MODEL_RULES } from "./model-table.js";

/**
 * A model id an operator or a user may choose: a model of the table (a dated snapshot of one too), or an
 * explicit `openai:<name>` (a self-hosted OpenAI-compatible endpoint) — a bare unknown name (`gpt-4o`)
 * is refused rather than guessed to be OpenAI's. Returns the refusal, echoing the value and listing the
 * known ids, or null. `replay:` files are for OPEN_SWE_MODEL only.
 */
export function checkModelId(id: string): string | null {
  const canonical = canonicalModelId(id);
  if (id.trim().startsWith("openai:") && canonical.length > "openai:".length) return null;
  if (canonical.startsWith("replay:")) return `"${id}" is a replay file: set it as OPEN_SWE_MODEL (a deployment default), not as a chosen model`;
  const undated = canonical.replace(/-\d{8}$/, "");
  if (MODEL_RULES[canonical] || MODEL_RULES[undated]) return null;
  const known = Object.keys(MODEL_RULES).map((k) => k.replace(/^anthropic:/, "").replace(/^openai:/, ""));
  return `unknown model "${id}": one of ${known.join(", ")}, or openai:<name> for an OpenAI-compatible endpoint`;
}
