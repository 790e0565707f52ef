import type { GitHubAuth } from "../shared/github-auth.js";
import type { AppConfig } from "../config/env.js";
import { ensureMirror } from "../sandbox/workspace/mirror.js";
import { hostGit } from "../sandbox/workspace/host-git.js";
import { remoteUrl } from "./branch-name.js";

const MAX_FILE_BYTES = 1024 * 1024;

/**
 * Reads a review's changed files at a commit from the host mirror (the same one the review sandbox is
 * prepared from): what a finding's neighbours are read from. A file that is missing or larger than
 * 1 MiB is left out.
 */
export function mirrorFileReader(o: { config: AppConfig; github: GitHubAuth; installationId: number; owner: string; repo: string }) {
  return async (paths: readonly string[], sha: string): Promise<ReadonlyMap<string, string>> => {
    const token = await o.github.repoScopedToken(o.installationId, o.repo);
    const mirror = await ensureMirror({ mirrorRoot: o.config.sandbox.mirrorRoot, repo: `${o.owner}/${o.repo}`, remoteUrl: remoteUrl(o.config.gitRemoteTemplate, o.owner, o.repo), token });
    const out = new Map<string, string>();
    for (const path of paths) {
      const spec = `${sha}:${path}`;
      const size = Number((await hostGit(["-C", mirror, "cat-file", "-s", spec]).catch(() => "")).trim());
      if (!size || size > MAX_FILE_BYTES) continue;
      out.set(path, await hostGit(["-C", mirror, "cat-file", "blob", spec]));
    }
    return out;
  };
}
