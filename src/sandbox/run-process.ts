import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

export interface RunProcessOptions {
  env: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Per stream; the rest is read and dropped so the child never blocks on a full pipe. */
  maxOutputBytes: number;
  stdin?: Uint8Array;
  /** Keep the child's stdin open as a pipe (reached through onChild) instead of writing `stdin` and closing it. */
  stdinStream?: boolean;
  /** Descriptors handed to the child as fd 3, 4, … ("pipe": a new pipe, reachable through onChild). */
  extraFds?: Array<number | "pipe">;
  /** Called once right after spawn (e.g. to talk to the child over its extra pipes). */
  onChild?: (child: ChildProcess) => void;
  /** Start the child as this host user (the worker must be root); supplementary groups are dropped. */
  uid?: number;
  gid?: number;
  /**
   * Close every descriptor the worker inherited without close-on-exec (a supervisor's pipe, an IPC
   * channel) before `file` starts, so none reaches it; stdio and `extraFds` stay.
   */
  closeInheritedFds?: boolean;
  onSpawn?: (pid: number) => void;
  onExit?: (pid: number) => void;
}

export interface RunProcessResult {
  exitCode: number;
  stdout: Buffer;
  stderr: Buffer;
  truncated: boolean;
  timedOut: boolean;
}

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15, SIGPIPE: 13 };

/**
 * Spawns `file` as the leader of a new process group so a timeout can SIGKILL the whole group.
 * Resolves once the process exited and both pipes closed; never rejects for a non-zero exit.
 */
export function runProcess(file: string, args: readonly string[], opts: RunProcessOptions): Promise<RunProcessResult> {
  const leaks = opts.closeInheritedFds ? inheritedFds().filter((fd) => fd >= 3 + (opts.extraFds?.length ?? 0)) : [];
  if (leaks.length > 0) {
    // Node cannot clear FD_CLOEXEC or close descriptors in the child; a shell can. dash (fast) only
    // parses single-digit descriptors, bash any.
    args = ["-c", `exec ${leaks.map((fd) => `${fd}>&-`).join(" ")}; exec "$@"`, "close-fds", file, ...args];
    file = leaks.every((fd) => fd <= 9) ? "/bin/sh" : "/bin/bash";
  }
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      env: opts.env,
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      ...(opts.uid !== undefined ? { uid: opts.uid } : {}),
      ...(opts.gid !== undefined ? { gid: opts.gid } : {}),
      detached: true,
      stdio: [opts.stdin || opts.stdinStream ? "pipe" : "ignore", "pipe", "pipe", ...(opts.extraFds ?? [])],
    });
    const pid = child.pid;
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

    const killGroup = () => {
      timedOut = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const timer = opts.timeoutMs !== undefined ? setTimeout(killGroup, opts.timeoutMs) : undefined;
    const onAbort = () => killGroup();
    if (opts.signal?.aborted) killGroup();
    else opts.signal?.addEventListener("abort", onAbort, { once: true });

    if (opts.stdin && child.stdin) {
      child.stdin.on("error", () => {});
      child.stdin.end(opts.stdin);
    }
    child.on("error", (e) => {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      reject(e);
    });
    child.on("close", (code, signal) => {
      if (timer) clearTimeout(timer);
      if (pid !== undefined) opts.onExit?.(pid);
      opts.signal?.removeEventListener("abort", onAbort);
      const exitCode = timedOut ? 124 : (code ?? 128 + (SIGNALS[signal ?? ""] ?? 0));
      resolve({ exitCode, stdout: Buffer.concat(out), stderr: Buffer.concat(err), truncated, timedOut });
    });
  });
}

const O_CLOEXEC = 0o2000000;
let inherited: number[] | undefined;

/**
 * Descriptors of this process without close-on-exec. Node and libuv open everything close-on-exec,
 * so these are exactly the ones inherited from whoever started the worker; read once per process.
 */
export function inheritedFds(): number[] {
  if (inherited) return inherited;
  const found: number[] = [];
  for (const name of readdirSync("/proc/self/fd")) {
    const fd = Number(name);
    if (!(fd > 2)) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
      if (flags && (parseInt(flags[1]!, 8) & O_CLOEXEC) === 0) found.push(fd);
    } catch {
      // the descriptor readdir used, already closed
    }
  }
  inherited = found;
  return found;
}
