import { closeSync, openSync } from "node:fs";
import { errorMessage } from "../errors.js";
import { spawnChild } from "./spawn-child.js";
import { frame, frameReader, type SpawnReply, type SpawnRequest } from "./spawner-frames.js";

// The spawner process (see spawner.ts): requests on stdin, replies on stdout. It exits with its worker.
const worker = Number(process.argv[2]);
const aborts = new Map<number, AbortController>();
const post = (m: SpawnReply) => process.stdout.write(frame(m));
const fail = (id: number, err: unknown) => post({ type: "failed", id, message: errorMessage(err), ...((err as NodeJS.ErrnoException).code ? { code: (err as NodeJS.ErrnoException).code! } : {}) });

/** The worker's descriptor `fd`, opened anew here through /proc (same namespace, file or pipe). */
function reopen(fd: number): number {
  // Our parent is the worker until it dies; then /proc/<pid> could be anyone's.
  if (process.ppid !== worker) throw Object.assign(new Error("the worker that started the spawner is gone"), { code: "SPAWNER_ORPHANED" });
  return openSync(`/proc/${worker}/fd/${fd}`, "r");
}

function run(m: Extract<SpawnRequest, { type: "run" }>): void {
  const ac = new AbortController();
  aborts.set(m.id, ac);
  const opened: number[] = [];
  let extraFds: Array<number | "pipe"> | undefined;
  try {
    extraFds = m.opts.extraFds?.map((fd) => (fd === "pipe" ? fd : (opened.push(reopen(fd)), opened.at(-1)!)));
  } catch (err) {
    for (const fd of opened) closeSync(fd);
    aborts.delete(m.id);
    fail(m.id, err);
    return;
  }
  const closeOpened = () => {
    for (const fd of opened.splice(0)) closeSync(fd);
  };
  spawnChild(m.file, m.args, {
    ...m.opts,
    ...(extraFds ? { extraFds } : {}),
    signal: ac.signal,
    onSpawn: (pid) => {
      closeOpened(); // the child holds its own copies now
      post({ type: "spawned", id: m.id, pid });
    },
  })
    .then(
      (result) => post({ type: "done", id: m.id, result }),
      (err: unknown) => fail(m.id, err),
    )
    .finally(() => {
      closeOpened();
      aborts.delete(m.id);
    });
}

process.stdin.on(
  "data",
  frameReader<SpawnRequest>((m) => {
    if (m.type === "abort") aborts.get(m.id)?.abort();
    else run(m);
  }),
);
// The worker is gone (or let us go): so are we. Running children were killed by the worker's side.
process.stdin.on("end", () => process.exit(0));
process.stdin.on("error", () => process.exit(0));
process.stdout.on("error", () => process.exit(0));
