import { readFileSync } from "node:fs";
import { envProblems } from "../config/env-problems.js";
import { maskedValue } from "../config/env-refusal.js";
import { EnvSchema, readConfig } from "../config/env.js";
import { ModelEnv } from "../config/model-config.js";
import { repoFileProblems } from "../config/repo-file-problems.js";
import { SandboxEnv } from "../config/sandbox-config.js";
import { OpenSweError } from "../errors.js";
import { missingSandboxKeys } from "../startup-summary.js";

/** The variables the readers know (app, sandbox, model, web search), `PATH` aside: what the summary lists when set. */
const KNOWN = new Set([...Object.keys(EnvSchema.shape), ...Object.keys(SandboxEnv.shape), ...Object.keys(ModelEnv.shape), "TAVILY_API_KEY", "BRAVE_SEARCH_API_KEY"].filter((k) => k !== "PATH"));

/**
 * `open-swe config check [--repo-file PATH]`: every problem as one line naming the field, then a verdict.
 * Returns the exit status: 0 valid, 1 something is invalid. Starts nothing, connects to nothing.
 */
export function runConfigCheck(repoFile: string | undefined, env: Record<string, string | undefined>, out: (line: string) => void): number {
  if (repoFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(repoFile, "utf8");
    } catch (err) {
      throw new OpenSweError("repo_file_unreadable", `cannot read ${repoFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    const problems = repoFileProblems(text);
    for (const p of problems) out(`${repoFile}: ${p}`);
    out(problems.length ? `${repoFile} is invalid: ${problems.length} problem${problems.length > 1 ? "s" : ""}` : `${repoFile} is valid`);
    return problems.length ? 1 : 0;
  }
  const problems = envProblems(env);
  for (const p of problems) out(p);
  if (problems.length) {
    out(`the environment is invalid: ${problems.length} problem${problems.length > 1 ? "s" : ""}`);
    return 1;
  }
  const config = readConfig(env);
  for (const [name, value] of Object.entries(env).sort(([a], [b]) => a.localeCompare(b))) if (value && (KNOWN.has(name) || name.startsWith("MCP_SECRET_"))) out(`${name}=${maskedValue(name, value)}`);
  for (const { key, required } of missingSandboxKeys(config.sandbox))
    out(`note: ${key} is not set: ${required ? `a worker (SANDBOX_TYPE=${config.sandbox.type}) refuses to start without it` : "Modal needs it unless a ~/.modal.toml profile holds the token"}`);
  out(`the environment is valid${config.github ? "" : " (no GitHub App credentials: web and all serve the setup flow, a worker refuses to start)"}`);
  return 0;
}
