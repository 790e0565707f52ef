/** One entry of a repository's tree at a commit (`git ls-tree -r -l`). */
export interface TreeEntry {
  mode: string;
  oid: string;
  size: number;
  path: string;
}

/**
 * A repository at one commit, read-only: what is committed, never a writable checkout. The agent's
 * file-based subagents read their definitions through it; `src/sandbox/workspace/mirror-commit-tree.ts`
 * implements it over the host mirror.
 */
export interface CommitTree {
  /** Every entry under the given directories (recursively). */
  list(dirs: readonly string[]): Promise<TreeEntry[]>;
  /** Blob texts by object id (missing ids are left out). */
  read(oids: readonly string[]): Promise<Map<string, string>>;
}
