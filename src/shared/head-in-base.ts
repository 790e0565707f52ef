/**
 * Pure: is a pull request's head branch in the repository it merges into? `headRepo` is GitHub's
 * `head.repo.full_name`: a fork's name, or null when the fork was deleted; only the base repository's own
 * name (any case) counts. The agent pushes only to the base repository, so a PR whose head is anywhere
 * else is never the agent's, whatever its branch is called.
 */
export function headInBase(headRepo: string | null | undefined, base: { owner: string; repo: string }): boolean {
  return typeof headRepo === "string" && headRepo.toLowerCase() === `${base.owner}/${base.repo}`.toLowerCase();
}
