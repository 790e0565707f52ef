import { existsSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { OpenSweError } from "../../errors.js";
import { hostGit } from "./host-git.js";

export interface MirrorOptions {
  mirrorRoot: string;
  /** "owner/name": names the mirror directory. */
  repo: string;
  /** Where to fetch from, without credentials (https://github.com/owner/name.git, or a path in tests). */
  remoteUrl: string;
  token?: string;
}

const inFlight = new Map<string, Promise<string>>();

export function mirrorPath(mirrorRoot: string, repo: string): string {
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repo) || repo.includes("..")) throw new OpenSweError("invalid_repo", `invalid repository name "${repo}"`);
  return join(mirrorRoot, "mirrors", `${repo.replace("/", "__")}.git`);
}

/**
 * A host-side `git clone --mirror` cache, fetched on each call so runs see the latest refs without
 * re-downloading the repository. The token is used for this fetch only; the mirror's config keeps
 * the bare URL. Concurrent callers in one process share one fetch.
 */
export function ensureMirror(opts: MirrorOptions): Promise<string> {
  const path = mirrorPath(opts.mirrorRoot, opts.repo);
  const running = inFlight.get(path);
  if (running) return running;
  const work = (async () => {
    const auth = opts.token ? { token: opts.token } : {};
    if (existsSync(join(path, "HEAD"))) {
      const fetch = () => hostGit(["-C", path, "fetch", "--prune", "--quiet", opts.remoteUrl, "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*", "+refs/pull/*:refs/pull/*"], auth);
      // Another worker process on this host may hold the mirror's ref locks: retry once.
      await fetch().catch(async () => {
        await new Promise((r) => setTimeout(r, 500));
        await fetch();
      });
      return path;
    }
    await mkdir(join(opts.mirrorRoot, "mirrors"), { recursive: true });
    const tmp = `${path}.tmp-${process.pid}-${Date.now()}`;
    try {
      await hostGit(["clone", "--mirror", "--quiet", opts.remoteUrl, tmp], auth);
      await rename(tmp, path);
    } catch (err) {
      await rm(tmp, { recursive: true, force: true });
      if (!existsSync(join(path, "HEAD"))) throw err;
    }
    return path;
  })().finally(() => inFlight.delete(path));
  inFlight.set(path, work);
  return work;
}

/** The commit a ref (branch, tag, `refs/pull/N/head`, or sha) points at in the mirror. */
export async function resolveRef(mirror: string, ref: string): Promise<string> {
  return (await hostGit(["-C", mirror, "rev-parse", "--verify", "--quiet", `${ref}^{commit}`])).trim();
}
