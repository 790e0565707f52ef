import type { ProbotOctokit } from "probot";
import { z } from "zod";

export interface SampleLimits {
  /** Closed PRs to look at, most recently updated first. */
  maxPulls: number;
  /** Comments kept per reviewer, so one prolific reviewer does not define the style. */
  maxPerReviewer: number;
  maxComments: number;
  /** Characters kept of each comment body and diff hunk. */
  maxChars: number;
}

export const DEFAULT_SAMPLE_LIMITS: SampleLimits = { maxPulls: 30, maxPerReviewer: 15, maxComments: 120, maxChars: 600 };

export interface ReviewSample {
  pull: number;
  reviewer: string;
  path: string;
  body: string;
  diffHunk: string;
}

export const RawReviewComment = z.object({
  user: z.object({ login: z.string(), type: z.string().optional() }).nullable(),
  body: z.string(),
  path: z.string(),
  diff_hunk: z.string().optional(),
});
export type RawReviewComment = z.infer<typeof RawReviewComment>;

export function isBotLogin(user: RawReviewComment["user"], botLogins: readonly string[]): boolean {
  if (!user) return true;
  const login = user.login.toLowerCase();
  return user.type === "Bot" || login.endsWith("[bot]") || botLogins.some((b) => b.toLowerCase().replace(/\[bot\]$/, "") === login.replace(/\[bot\]$/, ""));
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/**
 * Pure: picks a bounded, balanced sample of human review comments. Bots and trivial comments
 * ("LGTM", "+1") are skipped; each reviewer contributes at most `maxPerReviewer`.
 */
export function boundSamples(byPull: ReadonlyArray<{ pull: number; comments: readonly RawReviewComment[] }>, limits: SampleLimits, botLogins: readonly string[]): ReviewSample[] {
  const perReviewer = new Map<string, number>();
  const out: ReviewSample[] = [];
  for (const { pull, comments } of byPull.slice(0, limits.maxPulls)) {
    for (const c of comments) {
      if (out.length >= limits.maxComments) return out;
      if (isBotLogin(c.user, botLogins) || c.body.trim().length < 15) continue;
      const reviewer = c.user!.login;
      const n = perReviewer.get(reviewer) ?? 0;
      if (n >= limits.maxPerReviewer) continue;
      perReviewer.set(reviewer, n + 1);
      out.push({ pull, reviewer, path: c.path, body: clip(c.body.trim(), limits.maxChars), diffHunk: clip(c.diff_hunk ?? "", limits.maxChars) });
    }
  }
  return out;
}

/** Bootstrap input: recent closed PRs' inline review comments, within the limits. */
export async function collectReviewSamples(
  octokit: ProbotOctokit,
  repo: { owner: string; repo: string },
  botLogins: readonly string[],
  limits: SampleLimits = DEFAULT_SAMPLE_LIMITS,
): Promise<ReviewSample[]> {
  const pulls = await octokit.rest.pulls.list({ ...repo, state: "closed", sort: "updated", direction: "desc", per_page: Math.min(100, limits.maxPulls) });
  const numbers = z
    .array(z.object({ number: z.number() }))
    .parse(pulls.data)
    .map((p) => p.number);
  const byPull: Array<{ pull: number; comments: RawReviewComment[] }> = [];
  let total = 0;
  for (const pull of numbers.slice(0, limits.maxPulls)) {
    if (total >= limits.maxComments * 2) break;
    const res = await octokit.rest.pulls.listReviewComments({ ...repo, pull_number: pull, per_page: 100 });
    const comments = z.array(RawReviewComment).parse(res.data);
    total += comments.length;
    byPull.push({ pull, comments });
  }
  return boundSamples(byPull, limits, botLogins);
}
