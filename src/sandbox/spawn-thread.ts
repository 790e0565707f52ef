import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { SpawnChildOptions, SpawnChildResult } from "./spawn-child.js";

/** What may cross to the thread: no callbacks, no signal. */
export type ThreadSpawnOptions = Omit<SpawnChildOptions, "signal" | "onSpawn" | "onChild" | "keepStdin">;

export type SpawnRequest = { type: "run"; id: number; file: string; args: readonly string[]; opts: ThreadSpawnOptions } | { type: "abort"; id: number };
export type SpawnReply =
  | { type: "spawned"; id: number; pid: number }
  | { type: "done"; id: number; result: SpawnChildResult }
  | { type: "failed"; id: number; message: string; code?: string };

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

/** The thread's module: through tsx from the TypeScript sources in a checkout, compiled in dist/. */
function threadEntry(): { code: string } | { file: string } {
  const here = fileURLToPath(import.meta.url);
  const ts = join(dirname(here), "spawn-thread-main.ts");
  if (here.endsWith(".ts") && existsSync(ts)) {
    const api = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api").replace(/\.cjs$/, ".mjs")).href;
    return { code: `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(pathToFileURL(ts).href)}); })` };
  }
  return { file: join(dirname(here), "spawn-thread-main.js") };
}

function spawnError(message: string, code?: string): Error {
  return Object.assign(new Error(message), code ? { code } : {});
}

/**
 * One thread per process that runs every fork (`spawnChild`) and collects the child's output. It
 * shares the process's descriptors, so `extraFds` (a namespace, a seccomp filter) pass as they are. A
 * thread that dies takes its children's process groups with it and fails their runs with the cause;
 * the next run starts a new thread.
 */
export class SpawnThread {
  #worker: Worker | undefined;
  #pending = new Map<number, Pending>();
  #next = 0;

  run(file: string, args: readonly string[], opts: ThreadSpawnOptions, hooks: SpawnHooks = {}): Promise<SpawnChildResult> {
    const worker = this.#ensure();
    const id = ++this.#next;
    return new Promise<SpawnChildResult>((resolve, reject) => {
      const p: Pending = { resolve, reject, hooks };
      this.#pending.set(id, p);
      if (this.#pending.size === 1) worker.ref();
      worker.postMessage({ type: "run", id, file, args, opts } satisfies SpawnRequest);
      if (hooks.signal) {
        p.onAbort = () => worker.postMessage({ type: "abort", id } satisfies SpawnRequest);
        if (hooks.signal.aborted) p.onAbort();
        else hooks.signal.addEventListener("abort", p.onAbort, { once: true });
      }
    });
  }

  /** Stops the thread (tests); its children are killed and their runs fail. */
  async stop(): Promise<void> {
    const w = this.#worker;
    if (w) await w.terminate();
  }

  #settle(id: number): Pending | undefined {
    const p = this.#pending.get(id);
    if (!p) return undefined;
    this.#pending.delete(id);
    if (p.onAbort) p.hooks.signal?.removeEventListener("abort", p.onAbort);
    if (p.pid !== undefined) p.hooks.onExit?.(p.pid);
    if (this.#pending.size === 0) this.#worker?.unref();
    return p;
  }

  #ensure(): Worker {
    if (this.#worker) return this.#worker;
    const entry = threadEntry();
    const worker = "code" in entry ? new Worker(entry.code, { eval: true }) : new Worker(entry.file);
    worker.unref();
    worker.on("message", (m: SpawnReply) => {
      if (m.type === "spawned") {
        const p = this.#pending.get(m.id);
        if (!p) return;
        p.pid = m.pid;
        p.hooks.onSpawn?.(m.pid);
      } else if (m.type === "done") {
        const r = m.result;
        // Buffers arrive as plain Uint8Arrays.
        this.#settle(m.id)?.resolve({ ...r, stdout: Buffer.from(r.stdout.buffer, r.stdout.byteOffset, r.stdout.byteLength), stderr: Buffer.from(r.stderr.buffer, r.stderr.byteOffset, r.stderr.byteLength) });
      } else {
        this.#settle(m.id)?.reject(spawnError(m.message, m.code));
      }
    });
    const died = (why: string) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
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
        p.reject(spawnError(`the spawn thread stopped (${why}) before the process finished`, "SPAWN_THREAD_EXITED"));
      }
    };
    worker.on("error", (err) => died(err.message));
    worker.on("exit", (code) => died(`exit ${code}`));
    this.#worker = worker;
    return worker;
  }
}

let shared: SpawnThread | undefined;

/** This process's spawn thread. */
export function spawnThread(): SpawnThread {
  shared ??= new SpawnThread();
  return shared;
}
