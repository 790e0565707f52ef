import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { shellQuote } from "../../shared/shell-quote.js";
import { SandboxError, type Sandbox } from "../types.js";
import { hostGit } from "./host-git.js";
import { resolveRef } from "./mirror.js";

/**
 * Puts the mirror's `branch` into the sandbox's repository as `origin/<branch>` (a merge-conflict fix
 * merges the base in): a bundle of the commits the sandbox lacks, made on the host, fetched inside.
 * Returns the sha shared, or null when the branch has nothing `since` lacks.
 */
export async function shareBranchWithSandbox(sandbox: Sandbox, mirror: string, branch: string, since: string): Promise<string | null> {
  if (!/^[\w./-]+$/.test(branch) || branch.includes("..")) throw new SandboxError("exec_failed", `not a branch name: ${JSON.stringify(branch)}`);
  const sha = await resolveRef(mirror, `refs/heads/${branch}`);
  try {
    await hostGit(["-C", mirror, "merge-base", "--is-ancestor", sha, since]);
    return null;
  } catch {
    // Not an ancestor: there is something to merge.
  }
  const dir = await mkdtemp(join(tmpdir(), "osw-share-"));
  let bundle: Buffer;
  try {
    await hostGit(["-C", mirror, "bundle", "create", "--quiet", join(dir, "base.bundle"), `refs/heads/${branch}`, `^${since}`]);
    bundle = await readFile(join(dir, "base.bundle"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const path = `${sandbox.workdir}/.open-swe-base.bundle`;
  const [up] = await sandbox.upload([{ path, content: bundle }]);
  if (up?.error) throw new SandboxError("exec_failed", `cannot upload the base branch: ${up.error}`);
  const r = await sandbox.exec(`git fetch -q ${shellQuote(path)} ${shellQuote(`refs/heads/${branch}:refs/remotes/origin/${branch}`)}; s=$?; rm -f ${shellQuote(path)}; exit $s`, {
    timeoutMs: 10 * 60_000,
  });
  if (r.exitCode !== 0) throw new SandboxError("exec_failed", `cannot fetch the base branch in the sandbox: ${r.stderr.trim()}`);
  return sha;
}
