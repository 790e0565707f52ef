import { readdirSync, readFileSync } from "node:fs";
import type { ChildProcess } from "node:child_process";
import { spawnChild, type CgroupHandshake, type SpawnChildOptions, type SpawnChildResult } from "./spawn-child.js";
import { spawnThread } from "./spawn-thread.js";

export type { CgroupHandshake };

export interface RunProcessOptions extends Omit<SpawnChildOptions, "onChild" | "onSpawn"> {
  signal?: AbortSignal;
  /** Keep the child's stdin open as a pipe (reached through onChild) instead of writing `stdin` and closing it. */
  stdinStream?: boolean;
  /** Called once right after spawn (e.g. to talk to the child over its extra pipes). */
  onChild?: (child: ChildProcess) => void;
  /**
   * Close every descriptor the worker inherited without close-on-exec (a supervisor's pipe, an IPC
   * channel) before `file` starts, so none reaches it; stdio and `extraFds` stay.
   */
  closeInheritedFds?: boolean;
  onSpawn?: (pid: number) => void;
  onExit?: (pid: number) => void;
}

export type RunProcessResult = SpawnChildResult;

/**
 * Spawns `file` as the leader of a new process group so a timeout can SIGKILL the whole group.
 * Resolves once the process exited and both pipes closed; never rejects for a non-zero exit.
 *
 * The fork happens on the spawn thread (src/sandbox/spawn-thread.ts), not on the caller's event loop:
 * forking copies the page tables of the whole worker (~2 ms per 100 MB of RSS), which would stall every
 * run in the process. A child whose streams the caller keeps (`stdinStream`, `onChild`) is spawned here.
 */
export function runProcess(file: string, args: readonly string[], opts: RunProcessOptions): Promise<RunProcessResult> {
  const leaks = opts.closeInheritedFds ? inheritedFds().filter((fd) => fd >= 3 + (opts.extraFds?.length ?? 0)) : [];
  if (leaks.length > 0) {
    // Node cannot clear FD_CLOEXEC or close descriptors in the child; a shell can. dash (fast) only
    // parses single-digit descriptors, bash any.
    args = ["-c", `exec ${leaks.map((fd) => `${fd}>&-`).join(" ")}; exec "$@"`, "close-fds", file, ...args];
    file = leaks.every((fd) => fd <= 9) ? "/bin/sh" : "/bin/bash";
  }
  const { signal, stdinStream, onChild, onSpawn, onExit, closeInheritedFds: _close, ...spawnOpts } = opts;
  if (stdinStream || onChild) {
    const ac = new AbortController();
    const onAbort = () => ac.abort();
    if (signal?.aborted) ac.abort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    let pid: number | undefined;
    return spawnChild(file, args, {
      ...spawnOpts,
      ...(stdinStream ? { keepStdin: true } : {}),
      signal: ac.signal,
      onSpawn: (p) => {
        pid = p;
        onSpawn?.(p);
      },
      ...(onChild ? { onChild } : {}),
    }).finally(() => {
      signal?.removeEventListener("abort", onAbort);
      if (pid !== undefined) onExit?.(pid);
    });
  }
  return spawnThread().run(file, args, spawnOpts, { ...(signal ? { signal } : {}), ...(onSpawn ? { onSpawn } : {}), ...(onExit ? { onExit } : {}) });
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
