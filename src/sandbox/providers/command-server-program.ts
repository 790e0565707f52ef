/**
 * The program a local sandbox's command server runs (`node -e`), inside the sandbox's bubblewrap: none
 * of our modules are reachable there, so it is plain CommonJS text. It has the sandbox's rights and no
 * more; the worker reads what it says as it reads any sandbox output (see command-server.ts).
 *
 * In (stdin): frames of a 4-byte big-endian length and a JSON request, `{t:"run", id, cmd, env, cwd,
 * max, stdin?}` (stdin base64) or `{t:"kill", id}`.
 * Out (stdout): frames of a 4-byte length, a type byte (1 stdout, 2 stderr, 3 exit), a 4-byte id and
 * the bytes; an exit's bytes are JSON `{code, signal, truncated}` or `{spawnError}`; type 4 (ready) first.
 *
 * Each command is a process group of its own, killed whole when its shell exits. When no command is
 * running any more, every other process of the sandbox is killed (`kill(-1)` spares only this server
 * and bubblewrap's init) and /tmp and /dev/shm are emptied: what a command leaves behind does not outlive it.
 */
export const COMMAND_SERVER_PROGRAM = String.raw`"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const running = new Map();
const send = (type, id, bytes) => {
  const head = Buffer.alloc(9);
  head.writeUInt32BE(bytes.length + 5, 0);
  head[4] = type;
  head.writeUInt32BE(id, 5);
  process.stdout.write(Buffer.concat([head, bytes]));
};
const killGroup = (pid) => {
  try { process.kill(-pid, "SIGKILL"); } catch {}
};
const clear = (dir) => {
  try {
    for (const name of fs.readdirSync(dir)) fs.rmSync(dir + "/" + name, { recursive: true, force: true });
  } catch {}
};
const sweep = () => {
  if (running.size > 0) return;
  try { process.kill(-1, "SIGKILL"); } catch {}
  clear("/tmp");
  clear("/dev/shm");
};
const run = (m) => {
  let child;
  try {
    child = spawn("/bin/sh", ["-c", m.cmd], { cwd: m.cwd, env: m.env, detached: true, stdio: [m.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
  } catch (err) {
    send(3, m.id, Buffer.from(JSON.stringify({ spawnError: String(err && err.message) })));
    return;
  }
  let truncated = false;
  let failed;
  const left = [m.max, m.max];
  const forward = (type) => (chunk) => {
    const room = left[type - 1];
    if (chunk.length > room) truncated = true;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    left[type - 1] -= kept.length;
    send(type, m.id, kept);
  };
  child.stdout.on("data", forward(1));
  child.stderr.on("data", forward(2));
  if (child.stdin) {
    child.stdin.on("error", () => {});
    child.stdin.end(Buffer.from(m.stdin, "base64"));
  }
  running.set(m.id, child);
  child.on("error", (err) => {
    failed = String(err && err.message);
  });
  child.on("exit", () => {
    running.delete(m.id);
    if (child.pid !== undefined) killGroup(child.pid);
    sweep();
  });
  child.on("close", (code, signal) => {
    if (running.get(m.id) === child) running.delete(m.id);
    send(3, m.id, Buffer.from(JSON.stringify(failed !== undefined && child.pid === undefined ? { spawnError: failed } : { code, signal, truncated })));
    sweep();
  });
};
let buf = Buffer.alloc(0);
process.stdin.on("data", (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  while (buf.length >= 4) {
    const len = buf.readUInt32BE(0);
    if (buf.length < 4 + len) break;
    const m = JSON.parse(buf.subarray(4, 4 + len).toString("utf8"));
    buf = buf.subarray(4 + len);
    if (m.t === "run") run(m);
    else if (m.t === "kill") {
      const child = running.get(m.id);
      if (child && child.pid !== undefined) killGroup(child.pid);
    }
  }
});
process.stdin.on("end", () => process.exit(0));
send(4, 0, Buffer.alloc(0));
process.stdout.on("error", () => process.exit(0));
`;
