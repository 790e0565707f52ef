import { MODEL_RULES, canonicalModelId } from "../../config/model-table.js";

/** The models a thread may ask for: the operator's `THREAD_MODELS`, or every model in the table. */
export function allowedThreadModels(configured: readonly string[]): string[] {
  return (configured.length > 0 ? configured : Object.keys(MODEL_RULES)).map(canonicalModelId);
}

export type ThreadModelChoice = { ok: true; modelId: string } | { ok: false; reply: string };

/** Pure: may this thread use the model its request names (`--model <id>`)? A refusal lists the choices. */
export function chooseThreadModel(requested: string, allowed: readonly string[]): ThreadModelChoice {
  const id = canonicalModelId(requested);
  if (allowed.includes(id)) return { ok: true, modelId: id };
  const list = allowed.map((m) => `\`${m.replace(/^anthropic:/, "")}\``).join(", ");
  return { ok: false, reply: `I can't use the model \`${requested}\` here: it is not one this installation allows. Ask again with one of: ${list}.` };
}
