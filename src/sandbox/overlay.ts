import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";

const run = promisify(execFile);
const ENV = { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" };

export interface OverlaySpec {
  lower: string;
  upper: string;
  work: string;
}

/** mountinfo escapes space, tab, newline and backslash as octal. */
function unescapeMount(p: string): string {
  return p.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

export async function isMountPoint(target: string): Promise<boolean> {
  const info = await readFile("/proc/self/mountinfo", "utf8");
  return info.split("\n").some((line) => unescapeMount(line.split(" ")[4] ?? "") === target);
}

/** Mounts an overlayfs (needs root or a user namespace); throws when the kernel refuses. */
export async function mountOverlay(spec: OverlaySpec, target: string): Promise<void> {
  for (const p of [spec.lower, spec.upper, spec.work, target]) {
    if (/[,:\s]/.test(p)) throw new Error(`overlay path not supported: ${p}`);
  }
  await run("mount", ["-t", "overlay", "overlay", "-o", `lowerdir=${spec.lower},upperdir=${spec.upper},workdir=${spec.work}`, target], { env: ENV });
}

export async function unmount(target: string): Promise<void> {
  if (!(await isMountPoint(target))) return;
  try {
    await run("umount", [target], { env: ENV });
  } catch {
    await run("umount", ["-l", target], { env: ENV });
  }
}
