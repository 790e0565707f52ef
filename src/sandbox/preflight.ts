import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { errorMessage } from "../errors.js";
import type { SandboxConfig } from "../config/sandbox-config.js";
import { findExecutable } from "./find-executable.js";
import { mountOverlay, unmount } from "./overlay.js";
import { LocalSandboxProvider, type LocalSandbox } from "./providers/local.js";
import { SANDBOX_UID } from "./providers/bwrap-args.js";
import { localProviderOptions } from "./registry.js";

const run = promisify(execFile);

export type IsolationCheck = { ok: true; detail: string } | { ok: false; reason: string };

const DOCKER = "in Docker run the container with --security-opt seccomp=unconfined --security-opt apparmor=unconfined --security-opt systempaths=unconfined (see README, Docker)";

/**
 * Can this worker build the isolation it is configured for? For the local provider it starts one
 * real sandbox the way a run does (same user, mounts, namespaces) and runs `id -u` in it. A worker
 * that gets `ok: false` must not start: `reason` is one line saying what to change.
 */
export async function checkSandboxIsolation(config: SandboxConfig): Promise<IsolationCheck> {
  if (config.type !== "local") return { ok: true, detail: `${config.type} sandboxes: isolation is the vendor's` };
  const bwrap = findExecutable("bwrap", config.hostPath);
  if (!bwrap) {
    return { ok: false, reason: "bubblewrap (bwrap) is not on PATH: install it (apt-get install bubblewrap), or set SANDBOX_TYPE to e2b, modal or daytona" };
  }
  const provider = new LocalSandboxProvider({ ...localProviderOptions(config), execTimeoutMs: 30_000, maxOutputBytes: 64 * 1024 });
  const id = provider.identity;
  let sandbox: LocalSandbox | undefined;
  try {
    sandbox = await provider.create({ network: false, labels: { purpose: "preflight" } });
    const r = await sandbox.exec("id -u");
    if (r.exitCode !== 0 || r.stdout.trim() !== String(SANDBOX_UID)) return { ok: false, reason: explain(r.stderr || `id -u printed "${r.stdout.trim()}"`, id.uid) };
  } catch (err) {
    return { ok: false, reason: explain(errorMessage(err), id.uid) };
  } finally {
    if (sandbox) await provider.destroy(sandbox.id).catch(() => undefined);
  }
  const overlay = id.drop && config.localOverlay !== "off" && (await overlayWorks(config.root));
  const version = (await run(bwrap, ["--version"]).catch(() => ({ stdout: "bubblewrap" }))).stdout.trim();
  const user = id.drop ? `uid ${id.uid} (the worker is root; workspaces are reached through nosuid,nodev mounts)` : `uid ${id.uid} (the worker's own)`;
  return { ok: true, detail: `local sandboxes: ${version}, sandbox processes run as host ${user}, workspaces: ${overlay ? "overlay over shared checkouts" : "private copies"}` };
}

/** Maps what bubblewrap or mount said to the one setting that fixes it. */
function explain(message: string, uid: number): string {
  const line =
    message
      .split("\n")
      .map((l) => l.trim())
      .find(Boolean) ?? "unknown error";
  if (/creat\w* new namespace|setting up uid map|No space left on device|unshare.*(not permitted|denied)|user namespace/i.test(line)) {
    return `user namespaces are not available to uid ${uid} (${line}): allow unprivileged user namespaces on the host (sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces>0; on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0); ${DOCKER}`;
  }
  if (/Can't mount proc|mount proc/i.test(line)) return `bubblewrap cannot mount /proc (${line}): the container hides parts of /proc; ${DOCKER}`;
  if (/nosuid,nodev/.test(line)) return `${line}: run the worker as a non-root user (recommended), or give it CAP_SYS_ADMIN`;
  if (/EINVAL|EPERM/.test(line) && /spawn|start/i.test(line)) return `cannot start sandbox processes as uid ${uid} (${line}): give the root worker CAP_SETUID/CAP_SETGID or run it as a non-root user`;
  return `the local sandbox does not start: ${line}`;
}

async function overlayWorks(root: string): Promise<boolean> {
  await mkdir(root, { recursive: true, mode: 0o700 });
  const dir = await mkdtemp(join(root, ".overlay-probe-"));
  const [lower, upper, work, merged] = ["lower", "upper", "work", "merged"].map((n) => join(dir, n)) as [string, string, string, string];
  try {
    for (const d of [lower, upper, work, merged]) await mkdir(d);
    await mountOverlay({ lower, upper, work }, merged);
    await unmount(merged);
    return true;
  } catch {
    return false;
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
