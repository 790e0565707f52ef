import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { OpenSweError } from "../../errors.js";
import { buildAtomically } from "./build-atomically.js";
import { hostGit } from "./host-git.js";

export interface MirrorOptions {
  mirrorRoot: string;
  /** "owner/name": names the mirror directory. */
  repo: string;
  /** Where to fetch from, without credentials (https://github.com/owner/name.git, or a path in tests). */
  remoteUrl: string;
  token?: string;
}

export function mirrorPath(mirrorRoot: string, repo: string): string {
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repo) || repo.includes("..")) throw new OpenSweError("invalid_repo", `invalid repository name "${repo}"`);
  return join(mirrorRoot, "mirrors", `${repo.replace("/", "__")}.git`);
}

/**
 * A host-side `git clone --mirror` cache, fetched on each call so runs see the latest refs without
 * re-downloading the repository. The token is used for this fetch only; the mirror's config keeps
 * the bare URL. Concurrent callers in one process share one fetch that started after they called.
 */
export function ensureMirror(opts: MirrorOptions): Promise<string> {
  const path = mirrorPath(opts.mirrorRoot, opts.repo);
  const auth = opts.token ? { token: opts.token } : {};
  const fetch = () => hostGit(["-C", path, "fetch", "--prune", "--quiet", opts.remoteUrl, "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*", "+refs/pull/*:refs/pull/*"], auth);
  return buildAtomically(
    path,
    join(path, "HEAD"),
    async (tmp) => {
      await mkdir(join(opts.mirrorRoot, "mirrors"), { recursive: true });
      await hostGit(["clone", "--mirror", "--quiet", opts.remoteUrl, tmp], auth);
    },
    // Another worker process on this host may hold the mirror's ref locks: retry once.
    () =>
      fetch()
        .catch(async () => {
          await new Promise((r) => setTimeout(r, 500));
          await fetch();
        })
        .then(() => undefined),
    // A run asked for after a push must see it: a fetch that was already running when it asked may not.
    { refreshAfterCall: true },
  );
}

/** The commit a ref (branch, tag, `refs/pull/N/head`, or sha) points at in the mirror. */
export async function resolveRef(mirror: string, ref: string): Promise<string> {
  return (await hostGit(["-C", mirror, "rev-parse", "--verify", "--quiet", `${ref}^{commit}`])).trim();
}

/**
 * Where each of `refs` (full names: `refs/heads/x`, `refs/pull/N/head`) points in the mirror, in one git
 * process; a ref that does not exist is absent from the map.
 */
export async function resolveRefs(mirror: string, refs: readonly string[]): Promise<Map<string, string>> {
  const wanted = new Set(refs);
  const out = await hostGit(["-C", mirror, "for-each-ref", "--format=%(refname)%00%(objectname)%00%(*objectname)", "--", ...wanted]);
  const found = new Map<string, string>();
  for (const line of out.split("\n")) {
    const [name = "", oid = "", peeled = ""] = line.split("\0");
    if (wanted.has(name)) found.set(name, peeled || oid);
  }
  return found;
}
