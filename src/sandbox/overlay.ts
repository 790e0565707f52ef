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

/** Mounts an overlayfs (needs root), nosuid,nodev: nothing in it is set-uid or a device on the host. */
export async function mountOverlay(spec: OverlaySpec, target: string): Promise<void> {
  for (const p of [spec.lower, spec.upper, spec.work, target]) {
    if (/[,:\s]/.test(p)) throw new Error(`overlay path not supported: ${p}`);
  }
  await run("mount", ["-t", "overlay", "overlay", "-o", `nosuid,nodev,lowerdir=${spec.lower},upperdir=${spec.upper},workdir=${spec.work}`, target], { env: ENV });
}

/**
 * Binds `source` at `target` nosuid,nodev (needs root): whatever a sandbox leaves under it (workspace,
 * home) cannot be run set-uid or opened as a device through that path. Recursive: a sandbox's capped
 * disk, mounted inside `source`, is reached through it too (it is mounted nosuid,nodev itself).
 */
export async function mountNoSuid(source: string, target: string): Promise<void> {
  await run("mount", ["--rbind", "-o", "nosuid,nodev", source, target], { env: ENV });
}

/** The mount options of the mount at `target` ("rw,nosuid,nodev,…"), or undefined when it is not one. */
export async function mountOptions(target: string): Promise<string | undefined> {
  const info = await readFile("/proc/self/mountinfo", "utf8");
  const lines = info.split("\n").filter((line) => unescapeMount(line.split(" ")[4] ?? "") === target);
  return lines.at(-1)?.split(" ")[5];
}

export async function unmount(target: string): Promise<void> {
  if (!(await isMountPoint(target))) return;
  try {
    await run("umount", [target], { env: ENV });
  } catch {
    await run("umount", ["-l", target], { env: ENV });
  }
}
