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

/** Fills `{owner}` and `{repo}` in the configured remote template. */
export function remoteUrl(template: string, owner: string, repo: string): string {
  return template.replaceAll("{owner}", owner).replaceAll("{repo}", repo);
}
