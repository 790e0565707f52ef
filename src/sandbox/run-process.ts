import type { ChildProcess } from "node:child_process";
import { spawnChild, type SpawnChildOptions, type SpawnChildResult } from "./spawn-child.js";
import { closingInheritedFds } from "./inherited-fds.js";
import { spawner } from "./spawner.js";

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
 * The fork happens in the spawner process (src/sandbox/spawner.ts), not on the caller's event loop:
 * forking copies the page tables of the whole worker (~2 ms per 100 MB of RSS), which would stall every
 * run in the process. A child whose streams the caller keeps (`stdinStream`, `onChild`) is spawned here.
 */
export function runProcess(file: string, args: readonly string[], opts: RunProcessOptions): Promise<RunProcessResult> {
  const { signal, stdinStream, onChild, onSpawn, onExit, closeInheritedFds, ...spawnOpts } = opts;
  if (!stdinStream && !onChild) return spawner().run(file, args, spawnOpts, { ...(signal ? { signal } : {}), ...(onSpawn ? { onSpawn } : {}), ...(onExit ? { onExit } : {}) });
  // The spawner starts without the worker's inherited descriptors; a child forked here needs them closed.
  const launch = closeInheritedFds ? closingInheritedFds(file, [...args], 3 + (spawnOpts.extraFds?.length ?? 0)) : { file, args };
  let pid: number | undefined;
  return spawnChild(launch.file, launch.args, {
    ...spawnOpts,
    ...(stdinStream ? { keepStdin: true } : {}),
    ...(signal ? { signal } : {}),
    ...(onChild ? { onChild } : {}),
    onSpawn: (p) => {
      pid = p;
      onSpawn?.(p);
    },
  }).finally(() => {
    if (pid !== undefined) onExit?.(pid);
  });
}
