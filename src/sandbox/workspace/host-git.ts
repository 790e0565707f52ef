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

/**
 * Config every host git process runs with (command-line scope, so it wins over any repository's
 * own config): no hooks, no fsmonitor, no submodule recursion, no transport that runs a program.
 * A `.gitattributes` filter or diff driver runs only if some config defines it: there is no system
 * or global config, and host git only ever runs in repositories whose config the host wrote (the
 * mirror, shared checkouts, push quarantines), never in a directory a sandbox could have written.
 */
export const HARDENED_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ["core.hooksPath", "/dev/null"],
  ["core.fsmonitor", "false"],
  ["core.untrackedCache", "false"],
  ["protocol.allow", "never"],
  // A per-protocol setting beats protocol.allow in any scope: name the program-running ones too.
  ["protocol.ext.allow", "never"],
  ["protocol.fd.allow", "never"],
  ["protocol.ssh.allow", "never"],
  ["protocol.git.allow", "never"],
  ["protocol.file.allow", "always"],
  ["protocol.http.allow", "always"],
  ["protocol.https.allow", "always"],
  ["submodule.recurse", "false"],
];

/** The header git sends to GitHub for an installation token (what `x-access-token:<token>` basic auth means). */
export function authConfig(token: string): [string, string] {
  const basic = Buffer.from(`x-access-token:${token}`).toString("base64");
  return ["http.extraHeader", `Authorization: Basic ${basic}`];
}

function configEnv(pairs: ReadonlyArray<readonly [string, string]>): Record<string, string> {
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(pairs.length) };
  pairs.forEach(([k, v], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = k;
    env[`GIT_CONFIG_VALUE_${i}`] = v;
  });
  return env;
}

/**
 * Runs git on the host with a fixed, minimal environment: no inherited GIT_* variables, no user or
 * system config (so no credential helpers), no prompts, and HARDENED_CONFIG on top of whatever a
 * repository says. Throws OpenSweError("git_failed") on non-zero exit.
 */
export async function hostGit(args: string[], opts: HostGitOptions = {}): Promise<string> {
  return (await hostGitBytes(args, opts)).toString("utf8");
}

/** `hostGit` with stdout as bytes (`cat-file --batch` output is sized in bytes). */
export async function hostGitBytes(args: string[], opts: HostGitOptions = {}): Promise<Buffer> {
  const env: Record<string, string> = {
    PATH: HOST_PATH,
    HOME: "/nonexistent",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "/bin/false",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_PROTOCOL_FROM_USER: "0",
    LANG: "C",
    ...opts.env,
    ...configEnv([...HARDENED_CONFIG, ...(opts.token ? [authConfig(opts.token)] : [])]),
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
  return r.stdout;
}
