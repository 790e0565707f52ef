import { existsSync, readFileSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { OpenSweError } from "../errors.js";

/** Variables each prompt takes. Keep per-run values (task, thread, author) out: they break the cached prefix. */
export interface PromptVars {
  agent: { repo: string; workspace_root: string; default_branch: string };
  reviewer: { repo: string; workspace_root: string };
}
export type PromptName = keyof PromptVars;

// From src/agent/ in a checkout, or dist/src/agent/ in a build: the first prompts/ up the tree.
export const DEFAULT_PROMPTS_DIR =
  ["../../prompts/", "../../../prompts/"].map((rel) => fileURLToPath(new URL(rel, import.meta.url))).find((dir) => existsSync(dir)) ?? fileURLToPath(new URL("../../prompts/", import.meta.url));

const cache = new Map<string, ReadonlyMap<string, string>>();

/** Reads every `*.md` under the prompts folder once per folder. */
export function loadPrompts(dir: string = DEFAULT_PROMPTS_DIR): ReadonlyMap<string, string> {
  const hit = cache.get(dir);
  if (hit) return hit;
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith(".md"));
  } catch (err) {
    throw new OpenSweError("prompt_missing", `cannot read the prompts folder ${dir}`, { cause: err });
  }
  const prompts = new Map(files.map((f) => [basename(f, ".md"), readFileSync(join(dir, f), "utf8")]));
  cache.set(dir, prompts);
  return prompts;
}

const PLACEHOLDER = /\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/gi;

/** Fills `{{name}}` placeholders; a placeholder without a value is an error, never left in the text. */
export function renderTemplate(template: string, vars: Readonly<Record<string, string>>, name = "template"): string {
  const missing = new Set<string>();
  const out = template.replace(PLACEHOLDER, (_m, key: string) => {
    const value = vars[key];
    if (value === undefined) {
      missing.add(key);
      return "";
    }
    return value;
  });
  if (missing.size > 0) throw new OpenSweError("prompt_invalid", `prompt ${name} needs values for: ${[...missing].join(", ")}`);
  return out;
}

export function renderPrompt<N extends PromptName>(name: N, vars: PromptVars[N], dir?: string): string {
  const template = loadPrompts(dir).get(name);
  if (template === undefined) throw new OpenSweError("prompt_missing", `no prompt named ${name}.md`);
  return renderTemplate(template, vars as unknown as Record<string, string>, name);
}
