import type { Octokit } from "./app-auth.js";
import type { ReplyTarget } from "./reply.js";

export type Reaction = "eyes" | "rocket" | "confused";

/**
 * The lightest "I'm on it": a reaction on the comment (or issue) that asked. Review bodies have no
 * reactions API; for them this does nothing.
 */
export async function reactToRequest(octokit: Octokit, target: ReplyTarget, content: Reaction): Promise<void> {
  const c = target.comment;
  const base = { owner: target.owner, repo: target.repo, content };
  if (!c || c.kind === "review") return;
  if (c.kind === "issue_comment") await octokit.request("POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", { ...base, comment_id: c.id });
  else if (c.kind === "review_comment") await octokit.request("POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions", { ...base, comment_id: c.id });
  else await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/reactions", { ...base, issue_number: target.number });
}
