import { parentPort } from "node:worker_threads";
import { errorMessage } from "../errors.js";
import { spawnChild, type SpawnChildOptions } from "./spawn-child.js";
import type { SpawnReply, SpawnRequest } from "./spawn-thread.js";

// The spawn thread (see spawn-thread.ts): forks and collects output away from the worker's event loop.
const port = parentPort!;
const aborts = new Map<number, AbortController>();
const post = (m: SpawnReply) => port.postMessage(m);

port.on("message", (m: SpawnRequest) => {
  if (m.type === "abort") {
    aborts.get(m.id)?.abort();
    return;
  }
  const ac = new AbortController();
  aborts.set(m.id, ac);
  const opts: SpawnChildOptions = { ...m.opts, signal: ac.signal, onSpawn: (pid) => post({ type: "spawned", id: m.id, pid }) };
  spawnChild(m.file, m.args, opts).then(
    (r) => post({ type: "done", id: m.id, result: r }),
    (err: unknown) => post({ type: "failed", id: m.id, message: errorMessage(err), ...((err as NodeJS.ErrnoException).code ? { code: (err as NodeJS.ErrnoException).code! } : {}) }),
  ).finally(() => aborts.delete(m.id));
});
