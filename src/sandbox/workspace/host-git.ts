import { OpenSweError } from "../../errors.js";
import { runProcess } from "../run-process.js";

const HOST_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

export interface HostGitOptions {
  cwd?: string;
  /** Installation token: given to this one git process as an HTTP header via env, never written anywhere. */
  token?: string;
  env?: Record<string, string>;
  stdin?: Uint8Array;
  timeoutMs?: number;
}

/** The header git sends to GitHub for an installation token (what `x-access-token:<token>` basic auth means). */
export function authEnv(token: string): Record<string, string> {
  const basic = Buffer.from(`x-access-token:${token}`).toString("base64");
  return { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "http.extraHeader", GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}` };
}

/**
 * Runs git on the host with a fixed, minimal environment: no inherited GIT_* variables, no user or
 * system config (so no credential helpers), no prompts. Throws OpenSweError("git_failed") on non-zero exit.
 */
export async function hostGit(args: string[], opts: HostGitOptions = {}): Promise<string> {
  const env: Record<string, string> = {
    PATH: HOST_PATH,
    HOME: "/nonexistent",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "/bin/false",
    LANG: "C",
    ...opts.env,
    ...(opts.token ? authEnv(opts.token) : {}),
  };
  const r = await runProcess("git", args, {
    env,
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    ...(opts.stdin ? { stdin: opts.stdin } : {}),
    timeoutMs: opts.timeoutMs ?? 10 * 60_000,
    maxOutputBytes: 64 * 1024 * 1024,
  });
  if (r.exitCode !== 0) {
    let stderr = r.stderr.toString("utf8").trim();
    if (opts.token) stderr = stderr.split(opts.token).join("***");
    throw new OpenSweError("git_failed", `git ${args[0] ?? ""} failed (exit ${r.exitCode}): ${stderr}`);
  }
  return r.stdout.toString("utf8");
}
