import { execFile } from "node:child_process";
import { mkdir, rm, statfs } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { errorMessage } from "../../errors.js";
import { isMountPoint, unmount } from "../overlay.js";

const run = promisify(execFile);
const ENV = { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" };

/**
 * A sandbox's writable data (plain workspace, or overlay upper + work dirs) on its own ext4 image,
 * loop-mounted nosuid,nodev: a hard cap the kernel enforces (ENOSPC), no RAM used (unlike a tmpfs),
 * no host filesystem feature needed (unlike project quotas). The image is sparse and mounted with
 * `discard`, so it takes host disk only for what is stored. Needs root (mount); see sandbox-limits.ts.
 */
export function diskPaths(dir: string): { image: string; mount: string } {
  return { image: join(dir, "disk.img"), mount: join(dir, "disk") };
}

export async function createSandboxDisk(dir: string, mb: number): Promise<string> {
  const { image, mount } = diskPaths(dir);
  await mkdir(mount, { recursive: true });
  await run("truncate", ["-s", `${mb}M`, image], { env: ENV });
  // -m 0: no root reserve (the sandbox gets the whole cap); -i 8192: enough inodes for node_modules trees.
  await run("mkfs.ext4", ["-q", "-F", "-m", "0", "-i", "8192", "-E", "lazy_itable_init=1,lazy_journal_init=1,nodiscard", image], { env: ENV });
  await mountSandboxDisk(dir);
  return mount;
}

export async function mountSandboxDisk(dir: string): Promise<void> {
  const { image, mount } = diskPaths(dir);
  if (await isMountPoint(mount)) return;
  await run("mount", ["-o", "loop,nosuid,nodev,noatime,discard", image, mount], { env: ENV });
}

export async function removeSandboxDisk(dir: string): Promise<void> {
  const { image, mount } = diskPaths(dir);
  await unmount(mount);
  await rm(image, { force: true });
}

let unsupported: string | undefined;

/**
 * The capped filesystem for a new sandbox, or undefined when this process cannot make one: not root, no loop devices, no mkfs.ext4. Tried once per process.
 */
export async function trySandboxDisk(dir: string, mb: number): Promise<string | undefined> {
  if (unsupported) return undefined;
  if (process.getuid?.() !== 0) {
    unsupported = "not root: loop mounts need root";
    return undefined;
  }
  try {
    return await createSandboxDisk(dir, mb);
  } catch (err) {
    unsupported = `cannot make a loop-mounted ext4 image: ${errorMessage(err)}`;
    await removeSandboxDisk(dir).catch(() => {});
    return undefined;
  }
}

/** Free bytes on the filesystem holding `path`. */
export async function freeBytes(path: string): Promise<number> {
  const s = await statfs(path);
  return s.bavail * s.bsize;
}

/** Bytes under `dir` on its own filesystem (du -skx), for the fallback check when no capped disk exists. */
export async function usedBytes(dir: string): Promise<number> {
  const { stdout } = await run("du", ["-skx", dir], { env: ENV, maxBuffer: 1 << 16 });
  return Number(stdout.split("\t")[0]) * 1024;
}
