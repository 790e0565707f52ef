import { envIssueLine } from "./env-refusal.js";
import { EnvSchema, readConfig } from "./env.js";
import { ModelEnv } from "./model-config.js";
import { SandboxEnv } from "./sandbox-config.js";

/**
 * Every problem of an environment, one line each naming the variable (a credential's value never shown):
 * each reader's schema (app, sandbox, model) with all its issues, then `readConfig`'s own checks across
 * variables (a key without its app id, models, Redis) — what the roles would refuse at start. Empty: valid.
 */
export function envProblems(env: Record<string, string | undefined>, cwd = process.cwd()): string[] {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const lines = new Set<string>();
  for (const schema of [EnvSchema, SandboxEnv, ModelEnv]) {
    const parsed = schema.safeParse(cleaned);
    if (!parsed.success) for (const issue of parsed.error.issues) lines.add(envIssueLine(issue, cleaned));
  }
  if (lines.size > 0) return [...lines];
  try {
    readConfig(cleaned, cwd);
    return [];
  } catch (err) {
    return [(err as Error).message];
  }
}
