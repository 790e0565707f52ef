import type { Octokit } from "./app-auth.js";
import type { ReplyTarget } from "./reply.js";

/**
 * This app's reply with exactly `body` created in the target's thread since `since` (an ISO time), if any: a reply
 * whose post reached GitHub but whose record never reached Redis (its worker was cut off in between).
 * Reads the first 100 comments updated since then.
 */
export async function findPostedReply(octokit: Octokit, target: ReplyTarget, body: string, since: string): Promise<{ id: number } | null> {
  const res =
    target.comment?.kind === "review_comment"
      ? await octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}/comments", { owner: target.owner, repo: target.repo, pull_number: target.number, since, per_page: 100 })
      : await octokit.request("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", { owner: target.owner, repo: target.repo, issue_number: target.number, since, per_page: 100 });
  // `since` is on the last update: a same-text reply of an earlier run, edited since, is not this one.
  const from = Date.parse(since);
  const found = (res.data as { id: number; body?: string | null; created_at?: string; user?: { type?: string } | null }[]).find(
    (c) => c.body === body && c.user?.type === "Bot" && c.created_at !== undefined && Date.parse(c.created_at) >= from,
  );
  return found ? { id: Number(found.id) } : null;
}
