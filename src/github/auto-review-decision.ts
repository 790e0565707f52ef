import type { RepoConfig } from "../config/repo-config.js";

export interface AutoReviewInput {
  trigger: "auto" | "synchronize" | "mention";
  draft: boolean;
  state: "open" | "closed";
  repoConfig: RepoConfig;
  authorOptedIn: boolean;
  authorIsBot: boolean;
  lastReviewedHead: string | null;
  headSha: string;
}

/**
 * Every skip settles the job's check neutral with its reason, except `duplicate`: that head already has
 * a published review (and its check), so a second pass on it adds nothing.
 */
export type AutoReviewDecision = { review: true } | { review: false; reason: string; duplicate: boolean };

/** Pure: should this PR event be reviewed? Explicit mentions always are (permission is checked apart). */
export function decideAutoReview(i: AutoReviewInput): AutoReviewDecision {
  if (i.trigger === "mention") return { review: true };
  if (i.state !== "open") return { review: false, reason: "the pull request is closed", duplicate: false };
  if (!i.repoConfig.review.auto) return { review: false, reason: "auto-review is off in the repo config", duplicate: false };
  if (i.draft && !i.repoConfig.review.include_drafts) return { review: false, reason: "draft pull requests are not auto-reviewed", duplicate: false };
  if (!i.authorOptedIn) return { review: false, reason: "the author opted out of auto-review", duplicate: false };
  if (i.authorIsBot && i.trigger === "auto") return { review: false, reason: "pull requests by bots are not auto-reviewed", duplicate: false };
  if (i.lastReviewedHead === i.headSha) return { review: false, reason: "this head commit was already reviewed", duplicate: true };
  return { review: true };
}
