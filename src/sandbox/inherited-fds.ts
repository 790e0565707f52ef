import { readdirSync, readFileSync } from "node:fs";

/**
 * `file args` behind a shell that first closes this process's inherited descriptors from `from` up.
 * Node cannot clear FD_CLOEXEC or close descriptors in the child; a shell can. dash (fast) only parses
 * single-digit descriptors, bash any.
 */
export function closingInheritedFds(file: string, args: string[], from: number): { file: string; args: string[] } {
  const leaks = inheritedFds().filter((fd) => fd >= from);
  if (leaks.length === 0) return { file, args };
  return { file: leaks.every((fd) => fd <= 9) ? "/bin/sh" : "/bin/bash", args: ["-c", `exec ${leaks.map((fd) => `${fd}>&-`).join(" ")}; exec "$@"`, "close-fds", file, ...args] };
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
