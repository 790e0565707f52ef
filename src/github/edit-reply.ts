import type { Octokit } from "./app-auth.js";
import type { ReplyTarget } from "./reply.js";

/** Rewrites a comment we posted (issue/PR conversation or review-comment thread). */
export async function editReply(octokit: Octokit, target: ReplyTarget, commentId: number, body: string): Promise<void> {
  if (target.comment?.kind === "review_comment") {
    await octokit.request("PATCH /repos/{owner}/{repo}/pulls/comments/{comment_id}", { owner: target.owner, repo: target.repo, comment_id: commentId, body });
    return;
  }
  await octokit.request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", { owner: target.owner, repo: target.repo, comment_id: commentId, body });
}
