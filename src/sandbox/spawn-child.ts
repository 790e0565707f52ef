import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { errorMessage } from "../errors.js";

/**
 * bwrap's `--info-fd` / `--block-fd` pair: bwrap reports its child's pid on the first and waits on the
 * second before it runs anything of the command. The child and bwrap are moved into `cgroupDirs` in
 * between, so everything the command starts is born inside them, without an extra exec on the way.
 */
export interface CgroupHandshake {
  /** Child descriptor numbers of the two pipes (both must be "pipe" entries of `extraFds`). */
  infoFd: number;
  blockFd: number;
  cgroupDirs: string[];
}

export interface SpawnChildOptions {
  env: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Per stream; the rest is read and dropped so the child never blocks on a full pipe. */
  maxOutputBytes: number;
  stdin?: Uint8Array;
  /** Keep the child's stdin open as a pipe (reached through onChild). */
  keepStdin?: boolean;
  /** Descriptors handed to the child as fd 3, 4, … ("pipe": a new pipe). */
  extraFds?: Array<number | "pipe">;
  /** Start the child as this host user (the worker must be root); supplementary groups are dropped. */
  uid?: number;
  gid?: number;
  cgroupHandshake?: CgroupHandshake;
  onSpawn?: (pid: number) => void;
  onChild?: (child: ChildProcess) => void;
}

export interface SpawnChildResult {
  exitCode: number;
  stdout: Buffer;
  stderr: Buffer;
  truncated: boolean;
  timedOut: boolean;
  /** The handshake could not move the process into its cgroups (it was killed before running anything). */
  joinError?: string;
}

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15, SIGPIPE: 13 };

function killGroup(pid: number | undefined): void {
  try {
    if (pid !== undefined) process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

function handshake(child: ChildProcess, h: CgroupHandshake, onError: (err: unknown) => void): void {
  const info = child.stdio[h.infoFd] as Readable | undefined;
  const block = child.stdio[h.blockFd] as Writable | undefined;
  if (!info || !block) return;
  info.on("error", () => {});
  block.on("error", () => {});
  child.once("exit", () => {
    info.destroy();
    block.destroy();
  });
  let text = "";
  let joined = false;
  info.on("data", (chunk: Buffer) => {
    if (joined) return;
    text += chunk.toString("utf8");
    const m = /"child-pid"\s*:\s*(\d+)/.exec(text);
    if (!m) return;
    joined = true;
    try {
      for (const dir of h.cgroupDirs) {
        for (const pid of [Number(m[1]), child.pid ?? 0]) if (pid > 0) writeFileSync(join(dir, "cgroup.procs"), String(pid));
      }
      block.end("x");
    } catch (err) {
      onError(err);
      killGroup(child.pid);
    }
  });
}

/** The spawn itself, on whichever thread calls it (see runProcess for where that is). */
export function spawnChild(file: string, args: readonly string[], opts: SpawnChildOptions): Promise<SpawnChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      env: opts.env,
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      ...(opts.uid !== undefined ? { uid: opts.uid } : {}),
      ...(opts.gid !== undefined ? { gid: opts.gid } : {}),
      detached: true,
      stdio: [opts.stdin || opts.keepStdin ? "pipe" : "ignore", "pipe", "pipe", ...(opts.extraFds ?? [])],
    });
    const pid = child.pid;
    let joinError: string | undefined;
    if (opts.cgroupHandshake) handshake(child, opts.cgroupHandshake, (err) => (joinError = errorMessage(err)));
    if (pid !== undefined) opts.onSpawn?.(pid);
    opts.onChild?.(child);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const size = { out: 0, err: 0 };
    let truncated = false;
    let timedOut = false;
    const collect = (chunks: Buffer[], key: "out" | "err") => (chunk: Buffer) => {
      const room = opts.maxOutputBytes - size[key];
      if (room <= 0) {
        truncated = true;
        return;
      }
      if (chunk.length > room) truncated = true;
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
      chunks.push(kept);
      size[key] += kept.length;
    };
    child.stdout!.on("data", collect(out, "out"));
    child.stderr!.on("data", collect(err, "err"));

    const stop = () => {
      timedOut = true;
      killGroup(child.pid);
    };
    const timer = opts.timeoutMs !== undefined ? setTimeout(stop, opts.timeoutMs) : undefined;
    if (opts.signal?.aborted) stop();
    else opts.signal?.addEventListener("abort", stop, { once: true });

    if (opts.stdin && child.stdin) {
      child.stdin.on("error", () => {});
      child.stdin.end(opts.stdin);
    }
    child.on("error", (e) => {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener("abort", stop);
      reject(e);
    });
    child.on("close", (code, signal) => {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener("abort", stop);
      const exitCode = timedOut ? 124 : (code ?? 128 + (SIGNALS[signal ?? ""] ?? 0));
      resolve({ exitCode, stdout: Buffer.concat(out), stderr: Buffer.concat(err), truncated, timedOut, ...(joinError !== undefined ? { joinError } : {}) });
    });
  });
}
