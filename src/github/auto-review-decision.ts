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

/** `visible`: a skip the author can act on (draft, opted out, config) is shown as a neutral check. */
export type AutoReviewDecision = { review: true } | { review: false; reason: string; visible: boolean };

/** Pure: should this PR event be reviewed? Explicit mentions always are (permission is checked apart). */
export function decideAutoReview(i: AutoReviewInput): AutoReviewDecision {
  if (i.trigger === "mention") return { review: true };
  if (i.state !== "open") return { review: false, reason: "the pull request is closed", visible: false };
  if (!i.repoConfig.review.auto) return { review: false, reason: "auto-review is off in the repo config", visible: true };
  if (i.draft && !i.repoConfig.review.include_drafts) return { review: false, reason: "draft pull requests are not auto-reviewed", visible: true };
  if (!i.authorOptedIn) return { review: false, reason: "the author opted out of auto-review", visible: true };
  if (i.authorIsBot && i.trigger === "auto") return { review: false, reason: "pull requests by bots are not auto-reviewed", visible: false };
  if (i.lastReviewedHead === i.headSha) return { review: false, reason: "this head commit was already reviewed", visible: false };
  return { review: true };
}
