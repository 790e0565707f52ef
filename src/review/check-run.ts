import type { ProbotOctokit } from "probot";
import type { Logger } from "../logger.js";
import { completeCheckRun, openCheckRun, postCompletedCheckRun } from "../shared/check-runs.js";

export const REVIEW_CHECK_NAME = "Open SWE Review";

export type NeutralReason = "skipped" | "too_large" | "budget" | "incomplete" | "stale_approval";

export type CheckOutcome = { conclusion: "success"; summary: string } | { conclusion: "neutral"; reason: NeutralReason; summary: string } | { conclusion: "failure"; summary: string };

export interface CheckRunTarget {
  octokit: ProbotOctokit;
  owner: string;
  repo: string;
  headSha: string;
  detailsUrl?: string;
  externalId?: string;
  log?: Logger;
}

const TITLES: Record<CheckOutcome["conclusion"] | NeutralReason, string> = {
  success: "Review published",
  failure: "Review failed",
  neutral: "Review not run",
  skipped: "Review skipped",
  too_large: "Pull request too large to review",
  budget: "Review stopped at its budget",
  incomplete: "Review incomplete",
  stale_approval: "Earlier approval still stands",
};

function titleOf(outcome: CheckOutcome): string {
  return outcome.conclusion === "neutral" ? TITLES[outcome.reason] : TITLES[outcome.conclusion];
}

const MAX_SUMMARY = 60_000;

export async function startReviewCheckRun(t: CheckRunTarget): Promise<number> {
  return openCheckRun(t.octokit, t, REVIEW_CHECK_NAME, { title: "Reviewing", summary: "Open SWE is reviewing this pull request." }, t);
}

export async function settleReviewCheckRun(t: CheckRunTarget, checkRunId: number, outcome: CheckOutcome): Promise<void> {
  await completeCheckRun(t.octokit, t, checkRunId, outcome.conclusion, { title: titleOf(outcome), summary: outcome.summary.slice(0, MAX_SUMMARY) });
}

/** For when the in-progress check could not be created: the outcome still shows, as a completed check. */
export async function createSettledReviewCheckRun(t: CheckRunTarget, outcome: CheckOutcome): Promise<void> {
  await postCompletedCheckRun(t.octokit, t, REVIEW_CHECK_NAME, outcome.conclusion, { title: titleOf(outcome), summary: outcome.summary.slice(0, MAX_SUMMARY) }, { detailsUrl: t.detailsUrl });
}
