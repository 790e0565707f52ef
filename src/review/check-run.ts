import type { ProbotOctokit } from "probot";
import { z } from "zod";
import type { Logger } from "../logger.js";

export const REVIEW_CHECK_NAME = "Open SWE Review";

export type NeutralReason = "skipped" | "too_large" | "budget" | "incomplete";

export type CheckOutcome =
  | { conclusion: "success"; summary: string }
  | { conclusion: "neutral"; reason: NeutralReason; summary: string }
  | { conclusion: "failure"; summary: string };

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
};

function titleOf(outcome: CheckOutcome): string {
  return outcome.conclusion === "neutral" ? TITLES[outcome.reason] : TITLES[outcome.conclusion];
}

const MAX_SUMMARY = 60_000;

export async function startReviewCheckRun(t: CheckRunTarget): Promise<number> {
  const res = await t.octokit.rest.checks.create({
    owner: t.owner,
    repo: t.repo,
    name: REVIEW_CHECK_NAME,
    head_sha: t.headSha,
    status: "in_progress",
    started_at: new Date().toISOString(),
    ...(t.detailsUrl !== undefined ? { details_url: t.detailsUrl } : {}),
    ...(t.externalId !== undefined ? { external_id: t.externalId } : {}),
    output: { title: "Reviewing", summary: "Open SWE is reviewing this pull request." },
  });
  return z.object({ id: z.number() }).parse(res.data).id;
}

export async function settleReviewCheckRun(t: CheckRunTarget, checkRunId: number, outcome: CheckOutcome): Promise<void> {
  await t.octokit.rest.checks.update({
    owner: t.owner,
    repo: t.repo,
    check_run_id: checkRunId,
    status: "completed",
    conclusion: outcome.conclusion,
    completed_at: new Date().toISOString(),
    output: { title: titleOf(outcome), summary: outcome.summary.slice(0, MAX_SUMMARY) },
  });
}

/** For when the in-progress check could not be created: the outcome still shows, as a completed check. */
export async function createSettledReviewCheckRun(t: CheckRunTarget, outcome: CheckOutcome): Promise<void> {
  await t.octokit.rest.checks.create({
    owner: t.owner,
    repo: t.repo,
    name: REVIEW_CHECK_NAME,
    head_sha: t.headSha,
    status: "completed",
    conclusion: outcome.conclusion,
    completed_at: new Date().toISOString(),
    ...(t.detailsUrl !== undefined ? { details_url: t.detailsUrl } : {}),
    output: { title: titleOf(outcome), summary: outcome.summary.slice(0, MAX_SUMMARY) },
  });
}
