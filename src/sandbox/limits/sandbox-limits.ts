import { createHash } from "node:crypto";
import { closeSync, constants, lstatSync, mkdirSync, openSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runProcess, type RunProcessOptions, type RunProcessResult } from "../run-process.js";
import { errorMessage } from "../../errors.js";
import { SandboxError } from "../types.js";
import { detectCgroups, ensureSandboxCgroup, readCgroupCounters, removeSandboxCgroup, sandboxCgroupDirs, sweepIdleCgroups, type CgroupSetup } from "./cgroup.js";
import { seccompFilterBytes } from "./seccomp-policy.js";
import { freeBytes, usedBytes } from "./workspace-disk.js";
import type { SandboxLimits } from "../../config/sandbox-config.js";

export type LimitKind = "memory" | "processes" | "disk";

/** A limit the command ran into: what the agent reads next to the exit code. */
export interface LimitHit {
  kind: LimitKind;
  message: string;
}

export type LimitRuntime = { kind: "cgroup"; setup: CgroupSetup } | { kind: "rlimit"; reason: string };

const runtimes = new Map<string, Promise<LimitRuntime>>();

/** How limits are enforced in this process for these settings (detected once). */
export function limitRuntime(limits: SandboxLimits): Promise<LimitRuntime> {
  const key = `${limits.mode}|${limits.cgroupParent ?? ""}`;
  let r = runtimes.get(key);
  if (!r) {
    r = (async (): Promise<LimitRuntime> => {
      if (limits.mode === "rlimit") return { kind: "rlimit", reason: "SANDBOX_LIMITS=rlimit" };
      const found = await detectCgroups(limits.cgroupParent);
      if (found.ok) {
        sweepIdleCgroups(found.setup);
        return { kind: "cgroup", setup: found.setup };
      }
      if (limits.mode === "cgroup") throw new SandboxError("unavailable", `SANDBOX_LIMITS=cgroup but ${found.reason}`);
      return { kind: "rlimit", reason: found.reason };
    })();
    runtimes.set(key, r);
    r.catch(() => runtimes.delete(key));
  }
  return r;
}

/**
 * Opens the compiled filter for one exec (bwrap reads its descriptor to the end, so each exec needs its
 * own). The file lives in a per-user 0700 directory under the OS temp dir, checked to be ours and not a
 * link, so no other local user can swap the filter; it is rewritten whenever it is missing.
 */
function openSeccompFilter(): number | undefined {
  const bytes = seccompFilterBytes();
  if (!bytes) return undefined;
  const uid = process.getuid?.() ?? 0;
  const dir = join(tmpdir(), `open-swe-seccomp-${uid}`);
  const file = join(dir, `filter-${createHash("sha256").update(bytes).digest("hex").slice(0, 16)}.bpf`);
  try {
    return openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o077) !== 0) {
      throw new SandboxError("unavailable", `${dir} is not a private directory of this user: remove it`);
    }
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, bytes, { mode: 0o600 });
    renameSync(tmp, file);
    return openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  }
}

const MiB = 1024 * 1024;
const POLL_MS = 250;

export interface LimitedRunContext {
  sandboxId: string;
  hostWorkspace: string;
  /** The workspace sits on the sandbox's own capped filesystem. */
  diskMounted: boolean;
}

export interface LimitedResult extends RunProcessResult {
  limit?: LimitHit;
}

/**
 * Runs one bwrap invocation (or `nsenter … bwrap …`) under the sandbox's limits: a seccomp filter, the
 * sandbox's cgroups joined before the command starts (so no child escapes them), or rlimits set by prlimit. A limit that
 * fired is reported as `limit` plus one `open-swe:` line on stderr; a fork bomb is ended at once. `watch:
 * false` (a command server) leaves watching to each command it runs (`watchLimits`).
 */
export async function runLimited(limits: SandboxLimits, ctx: LimitedRunContext, file: string, args: readonly string[], options: RunProcessOptions & { watch?: boolean }): Promise<LimitedResult> {
  const { watch: watching = true, ...opts } = options;
  const rt = await limitRuntime(limits);
  const extraFds = [...(opts.extraFds ?? [])];
  const filterFd = openSeccompFilter();
  const limitArgs: string[] = [];
  if (filterFd !== undefined) {
    limitArgs.push("--seccomp", String(3 + extraFds.length));
    extraFds.push(filterFd);
  }
  if (rt.kind === "cgroup") limitArgs.push("--unshare-cgroup");
  // bwrap's own options start right after "bwrap" (directly, or as nsenter's command).
  const isBwrap = (a: string) => a === "bwrap" || a.endsWith("/bwrap");
  const at = isBwrap(file) ? 0 : args.findIndex(isBwrap) + 1;
  const bwrapArgs = [...args.slice(0, at), ...limitArgs, ...args.slice(at)];
  const cgLimits = { memoryBytes: limits.memoryMb * MiB, pids: limits.pids, cpus: limits.cpus };
  let launch = { file, args: bwrapArgs };
  let cgroupHandshake: RunProcessOptions["cgroupHandshake"];
  if (rt.kind === "cgroup") {
    await ensureSandboxCgroup(rt.setup, ctx.sandboxId, cgLimits).catch((err: unknown) => {
      if (filterFd !== undefined) closeSync(filterFd);
      throw new SandboxError("unavailable", `cannot set up the sandbox's cgroups: ${errorMessage(err)}`, { cause: err });
    });
    // bwrap reports its child's pid on --info-fd and waits on --block-fd before it runs anything of the
    // command: the spawn moves the child (and bwrap) into the sandbox's cgroups in between.
    const infoFd = 3 + extraFds.length;
    extraFds.push("pipe", "pipe");
    launch = { file, args: [...args.slice(0, at), "--info-fd", String(infoFd), "--block-fd", String(infoFd + 1), ...bwrapArgs.slice(at)] };
    cgroupHandshake = { infoFd, blockFd: infoFd + 1, cgroupDirs: sandboxCgroupDirs(rt.setup, ctx.sandboxId) };
  } else {
    const rl = [`--data=${limits.memoryMb * MiB}`, `--nproc=${limits.pids}`];
    if (limits.diskMb > 0) rl.push(`--fsize=${limits.diskMb * MiB}`);
    launch = { file: "prlimit", args: [...rl, "--", file, ...bwrapArgs] };
  }

  const ac = new AbortController();
  const onAbort = () => ac.abort();
  if (opts.signal?.aborted) ac.abort();
  else opts.signal?.addEventListener("abort", onAbort, { once: true });
  let watch = !watching ? undefined : watchLimits(limits, ctx, rt, () => ac.abort());
  const run = () => runProcess(launch.file, launch.args, { ...opts, extraFds, signal: ac.signal, ...(cgroupHandshake ? { cgroupHandshake } : {}) });
  let r: RunProcessResult;
  try {
    r = await run();
    // Another worker process swept the (idle) cgroup between our check and the join: make it again, once.
    if (rt.kind === "cgroup" && r.joinError !== undefined) {
      await ensureSandboxCgroup(rt.setup, ctx.sandboxId, cgLimits);
      watch?.stop();
      watch = !watching ? undefined : watchLimits(limits, ctx, rt, () => ac.abort());
      r = await run();
      if (r.joinError !== undefined) throw new SandboxError("unavailable", `cannot move the command into its cgroup: ${r.joinError}`);
    }
  } finally {
    watch?.stop();
    opts.signal?.removeEventListener("abort", onAbort);
    if (filterFd !== undefined) closeSync(filterFd);
  }
  return watch ? withLimitHit(r, await watch.finish(), watch.forkBomb() && !opts.signal?.aborted) : r;
}

export interface LimitWatch {
  /** The limit the command ran into, if any (call once it ended). */
  finish(): Promise<LimitHit | undefined>;
  /** It was stopped for refused forks. */
  forkBomb(): boolean;
  stop(): void;
}

/**
 * Watches the sandbox's limits while one command runs: a process storm keeps forking at the cap until
 * the timeout, so `onForkBomb` is called as soon as a fork is refused.
 */
export function watchLimits(limits: SandboxLimits, ctx: LimitedRunContext, rt: LimitRuntime, onForkBomb: () => void): LimitWatch {
  const before = rt.kind === "cgroup" ? readCgroupCounters(rt.setup, ctx.sandboxId) : { oomKills: 0, pidsRefused: 0 };
  let bomb = false;
  const poll =
    rt.kind === "cgroup"
      ? setInterval(() => {
          if (readCgroupCounters(rt.setup, ctx.sandboxId).pidsRefused > before.pidsRefused) {
            bomb = true;
            onForkBomb();
          }
        }, POLL_MS)
      : undefined;
  const stop = () => {
    if (poll) clearInterval(poll);
  };
  return {
    stop,
    forkBomb: () => bomb,
    async finish() {
      stop();
      if (rt.kind === "cgroup") {
        const after = readCgroupCounters(rt.setup, ctx.sandboxId);
        if (bomb || after.pidsRefused > before.pidsRefused) return { kind: "processes", message: `process limit (${limits.pids}) reached: the command was stopped` };
        if (after.oomKills > before.oomKills) return { kind: "memory", message: `memory limit (${limits.memoryMb} MiB) reached: a process was killed` };
      }
      return limits.diskMb > 0 ? await diskCheck(limits, ctx) : undefined;
    },
  };
}

/** The result as the agent reads it: the limit named on stderr, never an exit code of 0. `stopped`: ended for refused forks. */
export function withLimitHit<R extends RunProcessResult>(r: R, limit: LimitHit | undefined, stopped: boolean): R & { limit?: LimitHit } {
  if (!limit) return r;
  const stderr = Buffer.concat([r.stderr, r.stderr.length && !r.stderr.toString().endsWith("\n") ? Buffer.from("\n") : Buffer.alloc(0), Buffer.from(`open-swe: ${limit.message}\n`)]);
  // A command we stopped for a limit did not time out; an exit code of 0 would hide the failure.
  return {
    ...r,
    stderr,
    limit,
    ...(stopped ? { timedOut: false, exitCode: 137 } : {}),
    ...(r.exitCode === 0 ? { exitCode: 1 } : {}),
  };
}

async function diskCheck(limits: SandboxLimits, ctx: LimitedRunContext): Promise<LimitHit | undefined> {
  const message = `workspace disk limit (${limits.diskMb} MiB) reached: free space by deleting files (build outputs, caches)`;
  try {
    if (ctx.diskMounted) return (await freeBytes(ctx.hostWorkspace)) < MiB ? { kind: "disk", message } : undefined;
    return (await usedBytes(ctx.hostWorkspace)) > limits.diskMb * MiB ? { kind: "disk", message } : undefined;
  } catch {
    return undefined;
  }
}

/** Kills what is left of the sandbox in its cgroups and removes them (destroy). */
export async function releaseSandboxLimits(limits: SandboxLimits, sandboxId: string): Promise<void> {
  const rt = await limitRuntime(limits).catch(() => undefined);
  if (rt?.kind === "cgroup") await removeSandboxCgroup(rt.setup, sandboxId);
}
