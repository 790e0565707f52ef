import type { ProbotOctokit } from "probot";
import { z } from "zod";
import { errorMessage } from "../errors.js";
import type { Logger } from "../logger.js";

export const REVIEW_CHECK_NAME = "Open SWE Review";

export type NeutralReason = "skipped" | "too_large" | "budget";

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
};

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
  const title = outcome.conclusion === "neutral" ? TITLES[outcome.reason] : TITLES[outcome.conclusion];
  await t.octokit.rest.checks.update({
    owner: t.owner,
    repo: t.repo,
    check_run_id: checkRunId,
    status: "completed",
    conclusion: outcome.conclusion,
    completed_at: new Date().toISOString(),
    output: { title, summary: outcome.summary.slice(0, MAX_SUMMARY) },
  });
}

/**
 * Runs `fn` inside an "Open SWE Review" check run that is always settled: with the outcome `fn`
 * returns, or `failure` when it throws (the error is rethrown). Check-run API failures are logged
 * and never stop the review itself.
 */
export async function withSettledCheckRun<T>(t: CheckRunTarget, fn: (checkRunId: number | null) => Promise<{ outcome: CheckOutcome; result: T }>): Promise<T> {
  let checkRunId: number | null = null;
  try {
    checkRunId = await startReviewCheckRun(t);
  } catch (err) {
    t.log?.warn({ err: errorMessage(err) }, "could not create the review check run");
  }
  const settle = async (outcome: CheckOutcome): Promise<void> => {
    if (checkRunId === null) return;
    try {
      await settleReviewCheckRun(t, checkRunId, outcome);
    } catch (err) {
      t.log?.warn({ err: errorMessage(err), checkRunId }, "could not settle the review check run");
    }
  };
  let done: { outcome: CheckOutcome; result: T };
  try {
    done = await fn(checkRunId);
  } catch (err) {
    await settle({ conclusion: "failure", summary: `The review crashed: ${errorMessage(err)}` });
    throw err;
  }
  await settle(done.outcome);
  return done.result;
}
