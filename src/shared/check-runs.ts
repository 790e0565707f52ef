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

/**
 * What CI says on one commit: its check runs (up to 100) and its combined status. `statusPerPage` is the
 * statuses asked for (GitHub's default, 30, when unset).
 */
export async function readCommitChecks(octokit: ProbotOctokit, repo: { owner: string; repo: string }, sha: string, o: { statusPerPage?: number } = {}) {
  const [runs, status] = await Promise.all([
    octokit.request("GET /repos/{owner}/{repo}/commits/{ref}/check-runs", { owner: repo.owner, repo: repo.repo, ref: sha, per_page: 100 }),
    octokit.request("GET /repos/{owner}/{repo}/commits/{ref}/status", { owner: repo.owner, repo: repo.repo, ref: sha, ...(o.statusPerPage !== undefined ? { per_page: o.statusPerPage } : {}) }),
  ]);
  return { checkRuns: runs.data.check_runs, status: status.data };
}
