/** `open-swe/<first 8 of the thread id>-<slug of the task>`: stable per thread, readable in a PR list. */
export function agentBranchName(threadId: string, task: string): string {
  const slug = task
    .toLowerCase()
    .replace(/@[\w-]+/g, " ")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .split("-")
    .filter(Boolean)
    .slice(0, 6)
    .join("-")
    .slice(0, 40)
    .replace(/-+$/, "");
  return `open-swe/${threadId.slice(0, 8)}${slug ? `-${slug}` : ""}`;
}

/**
 * Pure: whether `branch` is a name `agentBranchName` gives this thread — `open-swe/<first 8 of its id>`, then
 * at most 40 characters of lower-case words joined by single hyphens. A thread's recorded branch is read
 * from Redis: any other name (`main`, another thread's branch) is not where this thread's runs push.
 */
export function isThreadAgentBranch(threadId: string, branch: string): boolean {
  const prefix = `open-swe/${threadId.slice(0, 8)}`;
  if (!branch.startsWith(prefix)) return false;
  const rest = branch.slice(prefix.length);
  return rest === "" || (rest.length <= 41 && /^-[a-z0-9]+(?:-[a-z0-9]+)*$/.test(rest));
}

/** Fills `{owner}` and `{repo}` in the configured remote template. */
export function remoteUrl(template: string, owner: string, repo: string): string {
  return template.replaceAll("{owner}", owner).replaceAll("{repo}", repo);
}
