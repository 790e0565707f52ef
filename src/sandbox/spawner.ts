import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Socket } from "node:net";
import { closingInheritedFds } from "./inherited-fds.js";
import type { SpawnChildResult } from "./spawn-child.js";
import { frame, frameReader, type SpawnerOptions, type SpawnReply, type SpawnRequest } from "./spawner-frames.js";

export interface SpawnHooks {
  signal?: AbortSignal;
  onSpawn?: (pid: number) => void;
  onExit?: (pid: number) => void;
}

interface Pending {
  resolve: (r: SpawnChildResult) => void;
  reject: (e: Error) => void;
  hooks: SpawnHooks;
  pid?: number;
  onAbort?: () => void;
}

/** The spawner's module: through tsx from the TypeScript sources in a checkout, compiled in dist/. */
function entryCommand(): string[] {
  const here = fileURLToPath(import.meta.url);
  const ts = join(dirname(here), "spawner-main.ts");
  if (here.endsWith(".ts") && existsSync(ts)) return ["--import", pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href, ts];
  return [join(dirname(here), "spawner-main.js")];
}

function spawnError(message: string, code?: string): Error {
  return Object.assign(new Error(message), code ? { code } : {});
}

/**
 * A small helper process that does every fork for this worker and collects the children's output.
 * Forking copies the page tables of the process that forks: ~2 ms per 100 MB of RSS, on its event loop,
 * serialised on its memory map — from a 500 MB worker that is 10 ms per command, for every run in the
 * process; from the spawner it is under 1 ms. The worker's descriptors a child needs (`extraFds`: a
 * network namespace, a seccomp filter) are opened anew by the spawner through /proc/<worker>/fd. A
 * spawner that dies takes its children's process groups with it and fails their runs with the cause;
 * the next run starts a new one.
 */
export class Spawner {
  #proc: ChildProcess | undefined;
  #pending = new Map<number, Pending>();
  #next = 0;
  #stderr = "";

  run(file: string, args: readonly string[], opts: SpawnerOptions, hooks: SpawnHooks = {}): Promise<SpawnChildResult> {
    let proc: ChildProcess;
    try {
      proc = this.#ensure();
    } catch (err) {
      return Promise.reject(err);
    }
    const id = ++this.#next;
    return new Promise<SpawnChildResult>((resolve, reject) => {
      const p: Pending = { resolve, reject, hooks };
      this.#pending.set(id, p);
      if (this.#pending.size === 1) this.#ref(proc, true);
      proc.stdin!.write(frame({ type: "run", id, file, args, opts } satisfies SpawnRequest));
      if (hooks.signal) {
        p.onAbort = () => proc.stdin!.write(frame({ type: "abort", id } satisfies SpawnRequest));
        if (hooks.signal.aborted) p.onAbort();
        else hooks.signal.addEventListener("abort", p.onAbort, { once: true });
      }
    });
  }

  /**
   * Starts the spawner now rather than on the first command (the worker calls it at start): loading it
   * takes a node start-up, which the first command of the first run would otherwise wait for.
   */
  start(): void {
    this.#ensure();
  }

  /** The spawner's pid, if one runs. */
  pid(): number | undefined {
    return this.#proc?.pid;
  }

  /** Stops the spawner (tests); its children are killed and their runs fail. */
  stop(): void {
    this.#proc?.kill("SIGKILL");
  }

  #ref(proc: ChildProcess, on: boolean): void {
    for (const s of [proc.stdin, proc.stdout, proc.stderr] as Array<Socket | null>) on ? s?.ref() : s?.unref();
    if (on) proc.ref();
    else proc.unref();
  }

  #settle(id: number): Pending | undefined {
    const p = this.#pending.get(id);
    if (!p) return undefined;
    this.#pending.delete(id);
    if (p.onAbort) p.hooks.signal?.removeEventListener("abort", p.onAbort);
    if (p.pid !== undefined) p.hooks.onExit?.(p.pid);
    if (this.#pending.size === 0 && this.#proc) this.#ref(this.#proc, false);
    return p;
  }

  #ensure(): ChildProcess {
    if (this.#proc) return this.#proc;
    // Started with none of the worker's inherited descriptors, so none can reach the commands it starts.
    const launch = closingInheritedFds(process.execPath, ["--max-old-space-size=128", ...entryCommand(), String(process.pid)], 3);
    const proc = spawn(launch.file, launch.args, { env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" }, stdio: ["pipe", "pipe", "pipe"] });
    this.#stderr = "";
    for (const s of [proc.stdin, proc.stdout, proc.stderr]) s!.on("error", () => undefined);
    proc.stderr!.on("data", (d: Buffer) => (this.#stderr = (this.#stderr + d.toString()).slice(-2000)));
    proc.stdout!.on(
      "data",
      frameReader<SpawnReply>((m) => {
        if (m.type === "spawned") {
          const p = this.#pending.get(m.id);
          if (!p) return;
          p.pid = m.pid;
          p.hooks.onSpawn?.(m.pid);
        } else if (m.type === "done") {
          this.#settle(m.id)?.resolve(m.result);
        } else {
          this.#settle(m.id)?.reject(spawnError(m.message, m.code));
        }
      }),
    );
    const died = (why: string) => {
      if (this.#proc !== proc) return;
      this.#proc = undefined;
      const line = this.#stderr.trim().split("\n")[0];
      for (const id of [...this.#pending.keys()]) {
        const p = this.#settle(id);
        if (!p) continue;
        // Nobody collects its output any more: end the process group rather than leave it running.
        if (p.pid !== undefined) {
          try {
            process.kill(-p.pid, "SIGKILL");
          } catch {
            // gone already
          }
        }
        p.reject(spawnError(`the spawner process stopped (${why}${line ? `: ${line}` : ""}) before the command finished`, "SPAWNER_EXITED"));
      }
    };
    proc.on("error", (err) => died(err.message));
    proc.on("exit", (code, signal) => died(signal ?? `exit ${code}`));
    this.#proc = proc;
    this.#ref(proc, false);
    return proc;
  }
}

let shared: Spawner | undefined;

/** This process's spawner. */
export function spawner(): Spawner {
  shared ??= new Spawner();
  return shared;
}
