import { readFile } from "node:fs/promises";
import { unmount } from "./overlay.js";

/** mountinfo escapes space, tab, newline and backslash as octal. */
const unescape = (p: string) => p.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
const SANDBOX_PATH = /\/local-[0-9a-f]{16}(?:\/|$)/;

/**
 * Mount points of local sandboxes whose source directory was deleted without `destroy()` (a data
 * directory removed by hand, a test's temporary root): nothing can use them any more, yet every new
 * mount namespace (each bwrap exec) copies and then tears them down. Deepest first.
 */
export function orphanedSandboxMounts(mountinfo: string): string[] {
  const out: string[] = [];
  for (const line of mountinfo.split("\n")) {
    const f = line.split(" ");
    if (f.length < 5) continue;
    const root = unescape(f[3]!);
    const point = unescape(f[4]!);
    if (SANDBOX_PATH.test(point) && (root.endsWith("//deleted") || point.endsWith("//deleted"))) out.push(point.replace(/\/\/deleted$/, ""));
  }
  return [...new Set(out)].sort((a, b) => b.length - a.length);
}

/** Unmounts them; returns what it removed (a mount another process removed first is skipped). */
export async function unmountOrphanedSandboxMounts(): Promise<string[]> {
  const points = orphanedSandboxMounts(await readFile("/proc/self/mountinfo", "utf8").catch(() => ""));
  const done: string[] = [];
  for (const p of points) {
    try {
      await unmount(p);
      done.push(p);
    } catch {
      // gone meanwhile, or not ours to unmount (an unprivileged worker)
    }
  }
  return done;
}
