import { chown, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SandboxError } from "../types.js";
import type { HostIdentity } from "../host-identity.js";

/** Where a new workspace's HEAD goes: a local branch at a commit. */
export interface BranchHead {
  branch: string;
  sha: string;
}

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/**
 * Writes HEAD (`ref: refs/heads/<branch>`) and the branch ref into `gitDir`, a directory the worker has
 * just created and no sandbox process has seen: every directory and file is created exclusively (an
 * existing one is an error, never followed) and handed to the sandbox user, as git would have left them.
 */
export async function writeBranchHead(gitDir: string, head: BranchHead, owner: HostIdentity): Promise<void> {
  const segments = head.branch.split("/");
  if (!segments.every((s) => SEGMENT.test(s) && !s.endsWith(".lock"))) throw new SandboxError("invalid", `invalid branch name "${head.branch}"`);
  if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(head.sha)) throw new SandboxError("invalid", `invalid commit "${head.sha}"`);
  const give = (path: string) => (owner.drop ? chown(path, owner.uid, owner.gid) : Promise.resolve());
  let dir = gitDir;
  for (const name of ["refs", "heads", ...segments.slice(0, -1)]) {
    dir = join(dir, name);
    await mkdir(dir, { mode: 0o755 });
    await give(dir);
  }
  const ref = join(dir, segments.at(-1)!);
  await writeFile(ref, `${head.sha}\n`, { flag: "wx", mode: 0o644 });
  await give(ref);
  await writeFile(join(gitDir, "HEAD"), `ref: refs/heads/${head.branch}\n`, { flag: "wx", mode: 0o644 });
  await give(join(gitDir, "HEAD"));
}
