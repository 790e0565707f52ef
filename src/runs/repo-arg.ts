import { isRepoName, repoNameError } from "../shared/repo-name.js";

export type RepoArg = { kind: "path"; path: string } | { kind: "remote"; repo: string } | { kind: "error"; message: string };

/**
 * What `open-swe run --repo X` means (pure): an existing path, else `owner/name` — but something written
 * like a path (`./x`, `/x`, `~/x`, `a/b/c`) that does not exist is an error, never a GitHub clone.
 */
export function classifyRepoArg(arg: string, exists: (p: string) => boolean): RepoArg {
  if (exists(arg)) return { kind: "path", path: arg };
  const pathLike = /^(\.{1,2}|~)(\/|$)|^\//.test(arg) || arg.split("/").length > 2;
  if (pathLike) return { kind: "error", message: `no such directory: ${arg}` };
  if (isRepoName(arg)) return { kind: "remote", repo: arg };
  return { kind: "error", message: `${repoNameError(arg)}, or a path to a git working copy` };
}
