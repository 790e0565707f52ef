import { spawn, type ChildProcess } from "node:child_process";

export interface RunProcessOptions {
  env: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Per stream; the rest is read and dropped so the child never blocks on a full pipe. */
  maxOutputBytes: number;
  stdin?: Uint8Array;
  /** Descriptors handed to the child as fd 3, 4, … ("pipe": a new pipe, reachable through onChild). */
  extraFds?: Array<number | "pipe">;
  /** Called once right after spawn (e.g. to talk to the child over its extra pipes). */
  onChild?: (child: ChildProcess) => void;
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
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      env: opts.env,
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      detached: true,
      stdio: [opts.stdin ? "pipe" : "ignore", "pipe", "pipe", ...(opts.extraFds ?? [])],
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
