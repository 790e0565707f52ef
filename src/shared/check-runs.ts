import type { ProbotOctokit } from "probot";
import { z } from "zod";

// The one writer of our GitHub check runs (the review's, the autofix run's and its skip notices, a broken
// repo config's): opened in progress and completed later, or posted already completed.

export interface CheckRunAt {
  owner: string;
  repo: string;
  headSha: string;
}

export type CheckConclusion = "success" | "neutral" | "failure";

export interface CheckOutput {
  title: string;
  summary: string;
}

export interface CheckRunLinks {
  detailsUrl?: string | undefined;
  externalId?: string | undefined;
}

function links(l: CheckRunLinks): { details_url?: string; external_id?: string } {
  return { ...(l.detailsUrl !== undefined ? { details_url: l.detailsUrl } : {}), ...(l.externalId !== undefined ? { external_id: l.externalId } : {}) };
}

/** A check run in progress on the commit; its id, for `completeCheckRun`. */
export async function openCheckRun(octokit: ProbotOctokit, at: CheckRunAt, name: string, output: CheckOutput, l: CheckRunLinks = {}): Promise<number> {
  const res = await octokit.request("POST /repos/{owner}/{repo}/check-runs", {
    owner: at.owner,
    repo: at.repo,
    name,
    head_sha: at.headSha,
    status: "in_progress",
    started_at: new Date().toISOString(),
    ...links(l),
    output,
  });
  return z.object({ id: z.number() }).parse(res.data).id;
}

export async function completeCheckRun(octokit: ProbotOctokit, at: { owner: string; repo: string }, checkRunId: number, conclusion: CheckConclusion, output: CheckOutput): Promise<void> {
  await octokit.request("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}", {
    owner: at.owner,
    repo: at.repo,
    check_run_id: checkRunId,
    status: "completed",
    conclusion,
    completed_at: new Date().toISOString(),
    output,
  });
}

/** A check run that is finished when it appears (a skip, a refusal, or an outcome whose opening failed). */
export async function postCompletedCheckRun(octokit: ProbotOctokit, at: CheckRunAt, name: string, conclusion: CheckConclusion, output: CheckOutput, l: CheckRunLinks = {}): Promise<void> {
  await octokit.request("POST /repos/{owner}/{repo}/check-runs", {
    owner: at.owner,
    repo: at.repo,
    name,
    head_sha: at.headSha,
    status: "completed",
    conclusion,
    completed_at: new Date().toISOString(),
    ...links(l),
    output,
  });
}
