import { OpenSweError } from "../errors.js";

/**
 * Refusals: the command line, the configuration or the host must change before the same command can work
 * (a typo, a bad value, a missing key or binary, a port or data directory another process holds).
 */
const REFUSALS: ReadonlySet<string> = new Set([
  "usage",
  "agents_usage",
  "config_invalid",
  "repo_config_invalid",
  "invalid_repo",
  "model_unknown",
  "model_invalid",
  "model_not_configured",
  "replay_invalid",
  "secret_invalid",
  "provenance_key_missing",
  "clock_skew",
  "host_in_use",
  "port_in_use",
  "port_denied",
]);

/**
 * Pure: the exit status of a failed `open-swe` command. 2: refused — the command line or the configuration is
 * wrong, running it again as it is cannot work; 1: it failed while running (Redis, GitHub, git, a sandbox or a
 * model unreachable or failing) and may work when tried again.
 */
export function exitStatus(err: unknown): 1 | 2 {
  return err instanceof OpenSweError && REFUSALS.has(err.code) ? 2 : 1;
}
