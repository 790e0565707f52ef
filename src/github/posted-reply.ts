import type { Octokit } from "./app-auth.js";
import { isPostedReply } from "../shared/is-posted-reply.js";
import type { ReplyTarget } from "./reply.js";

/**
 * This app's reply with exactly `body` created in the target's thread since `since` (an ISO time), if any: a reply
 * whose post reached GitHub but whose record never reached Redis (its worker was cut off in between). `author` is
 * this app's bot login: another app's bot posting the same text is not this reply.
 * Reads the first 100 comments updated since then.
 */
export async function findPostedReply(octokit: Octokit, target: ReplyTarget, reply: { body: string; since: string; author: string }): Promise<{ id: number } | null> {
  const { body, since } = reply;
  const res =
    target.comment?.kind === "review_comment"
      ? await octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}/comments", { owner: target.owner, repo: target.repo, pull_number: target.number, since, per_page: 100 })
      : await octokit.request("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", { owner: target.owner, repo: target.repo, issue_number: target.number, since, per_page: 100 });
  // `since` is on the last update: a same-text reply of an earlier run, edited since, is not this one.
  const want = { author: reply.author.toLowerCase(), text: body, sinceMs: Date.parse(since) };
  const found = (res.data as { id: number; body?: string | null; created_at?: string; user?: { login?: string } | null }[]).find((c) =>
    isPostedReply({ author: c.user?.login?.toLowerCase(), text: c.body, createdAtMs: c.created_at === undefined ? Number.NaN : Date.parse(c.created_at) }, want),
  );
  return found ? { id: Number(found.id) } : null;
}
