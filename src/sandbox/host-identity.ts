import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, chown, mkdir, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { DEFAULT_SANDBOX_HOST_UID } from "../config/sandbox-config.js";

const run = promisify(execFile);
const ENV = { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" };

/**
 * Who a sandbox's processes (and the files they write) are on the host. A root worker drops to a
 * dedicated unprivileged uid, so nothing a sandbox writes is root's; any other worker can only map
 * its own uid (an unprivileged user namespace), and its DATA_DIR is private to it.
 */
export interface HostIdentity {
  uid: number;
  gid: number;
  /** True when the worker is root and sandbox processes are started as `uid`/`gid`. */
  drop: boolean;
}

export function sandboxHostIdentity(configured: { uid: number; gid: number } = { uid: DEFAULT_SANDBOX_HOST_UID, gid: DEFAULT_SANDBOX_HOST_UID }): HostIdentity {
  const uid = process.getuid?.() ?? 0;
  if (uid === 0) return { ...configured, drop: true };
  return { uid, gid: process.getgid?.() ?? uid, drop: false };
}

/**
 * Hands a tree the worker (root) built to the sandbox user: directories and single-link files. Files
 * with other hard links (git objects shared with a mirror) stay the worker's and read-only, so a
 * sandbox can read and unlink them but never rewrite the shared inode.
 */
export async function claimTree(path: string, id: HostIdentity): Promise<void> {
  if (!id.drop) return;
  await run("find", [path, "(", "-type", "d", "-o", "-links", "1", ")", "-exec", "chown", "-h", `${id.uid}:${id.gid}`, "--", "{}", "+"], { env: ENV, maxBuffer: 1 << 20 });
}

/** A directory only the sandbox user can use (created or fixed). */
export async function sandboxOwnedDir(path: string, id: HostIdentity): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 });
  if (id.drop) await chown(path, id.uid, id.gid);
  await chmod(path, 0o700);
}

/** A directory on the way to sandbox directories: anyone may pass, nobody but the worker may list or change it. */
export async function passThroughDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o711 });
  await chmod(path, 0o711);
}

/**
 * A directory the worker keeps (metadata, mount points) that the sandbox user may pass through but
 * not list or change: 0700 for a non-root worker, 0710 with the sandbox's group for a root worker.
 */
export async function privateDir(path: string, id: HostIdentity): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 });
  if (id.drop) {
    const st = await stat(path);
    if (st.gid !== id.gid) await chown(path, st.uid, id.gid);
    await chmod(path, 0o710);
  } else {
    await chmod(path, 0o700);
  }
}

const claiming = new Map<string, Promise<void>>();

/**
 * A base checkout becomes the sandbox user's once, except its top directory and `.git` (host git
 * keeps treating it as the worker's own repository); the overlay's upper layer supplies those two
 * as the sandbox user's. `.git/index` is handed over last and marks the base done.
 */
export function claimBaseCheckout(lower: string, owner: HostIdentity): Promise<void> {
  let p = claiming.get(lower);
  if (!p) {
    p = (async () => {
      const index = join(lower, ".git", "index");
      if ((await stat(index).catch(() => undefined))?.uid === owner.uid) return;
      for (const entry of await readdir(lower)) {
        if (entry !== ".git") await claimTree(join(lower, entry), owner);
      }
      for (const entry of await readdir(join(lower, ".git")).catch(() => [] as string[])) {
        if (entry !== "index") await claimTree(join(lower, ".git", entry), owner);
      }
      if (existsSync(index)) await claimTree(index, owner);
    })().finally(() => claiming.delete(lower));
    claiming.set(lower, p);
  }
  return p;
}
