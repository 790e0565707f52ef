import { EnvSchema } from "../../src/config/env.js";
import LIVE_SUITES from "../live/suites.json" with { type: "json" };

/**
 * Variables that point the app at an operator's installation: its Redis, data, GitHub App, model keys.
 * The test run drops them from its environment, so a shell with them exported (or a loaded .env) cannot
 * lead a test to the operator's data. NODE_ENV describes the machine, not an installation.
 */
export const OPERATOR_ENV_KEYS: readonly string[] = [
  ...Object.keys(EnvSchema.shape).filter((k) => k !== "NODE_ENV"),
  "REDIS_URL",
  "SANDBOX_TYPE",
  "SANDBOX_ROOT",
  "SANDBOX_MIRROR_ROOT",
  "OPEN_SWE_MODEL",
  "OPEN_SWE_FALLBACK_MODEL",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_BASE_URL",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
];

/** Under `npm run test:live` the vendor credentials its suites need (test/live/suites.json) stay; nothing else. */
export function dropOperatorEnv(env: NodeJS.ProcessEnv): void {
  const keep = env.OPEN_SWE_TEST_LIVE === "1" ? LIVE_SUITES.flatMap((s) => s.needs) : [];
  for (const k of OPERATOR_ENV_KEYS) if (!keep.includes(k)) delete env[k];
}
