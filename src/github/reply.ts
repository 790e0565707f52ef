import type { Octokit } from "./app-auth.js";
import type { CommentRef } from "../queue/schemas.js";
import type { z } from "zod";

export interface ReplyTarget {
  owner: string;
  repo: string;
  number: number;
  comment?: z.infer<typeof CommentRef> | undefined;
}

/** Answers where the request was made: in the review-comment thread, else on the issue/PR conversation. */
export async function replyTo(octokit: Octokit, target: ReplyTarget, body: string): Promise<number> {
  if (target.comment?.kind === "review_comment") {
    const res = await octokit.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies", {
      owner: target.owner,
      repo: target.repo,
      pull_number: target.number,
      comment_id: target.comment.id,
      body,
    });
    return Number(res.data.id);
  }
  const res = await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
    owner: target.owner,
    repo: target.repo,
    issue_number: target.number,
    body,
  });
  return Number(res.data.id);
}

export const NOT_ALLOWED_REPLY = (login: string) => `Thanks @${login}. Only people with write access to this repository can ask me to act on it, so I have not started anything.`;
