import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { HOST_ID_RE } from "../queue/host-routes.js";

/**
 * This host's id for local sandboxes: kept beside them (`<SANDBOX_ROOT>/.host-id`), so a worker restarted
 * on the same disk is the same host and its threads' jobs still come to it. Made once, atomically.
 */
export async function readHostId(sandboxRoot: string): Promise<string> {
  const path = join(sandboxRoot, ".host-id");
  const existing = (await readFile(path, "utf8").catch(() => "")).trim();
  if (HOST_ID_RE.test(existing)) return existing;
  await mkdir(sandboxRoot, { recursive: true });
  const made = `h-${randomBytes(8).toString("hex")}`;
  // `wx`: two workers starting at once on one disk agree on the first one written.
  await writeFile(path, `${made}\n`, { flag: "wx", mode: 0o600 }).catch(() => undefined);
  const kept = (await readFile(path, "utf8")).trim();
  if (!HOST_ID_RE.test(kept)) throw new Error(`${path} holds no valid host id; remove it to make a new one`);
  return kept;
}

/**
 * This worker process: its machine (hostname: a container's own), the kernel's boot and its pid. Two
 * containers on one volume are both pid 1 on one kernel; their hostnames tell them apart.
 */
export async function workerInstanceId(): Promise<string> {
  const boot = (await readFile("/proc/sys/kernel/random/boot_id", "utf8").catch(() => "unknown")).trim().slice(0, 8);
  return `${hostname()}/${boot}/${process.pid}`;
}

/** A process of this pid namespace exists (EPERM: it does, as another user's). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
