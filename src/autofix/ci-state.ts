import type { Octokit } from "../github/app-auth.js";
import { isFailingConclusion, isFailingStatus } from "../github/ci-failure.js";
import { readCommitChecks } from "../shared/check-runs.js";

export interface FailingCheck {
  name: string;
  url: string | null;
  /** A check run's id (its logs can be read); null for a commit status. */
  checkRunId: number | null;
}

export interface CiState {
  failing: FailingCheck[];
  pending: string[];
}

/** What CI says on one commit: failing and unfinished check runs and statuses, never our own checks. */
export async function readCiState(octokit: Octokit, repo: { owner: string; repo: string }, sha: string, ownSlug: string): Promise<CiState> {
  const { checkRuns, status } = await readCommitChecks(octokit, repo, sha, { statusPerPage: 100 });
  const failing: FailingCheck[] = [];
  const pending: string[] = [];
  for (const r of checkRuns) {
    if (r.app?.slug === ownSlug) continue;
    if (r.status !== "completed") pending.push(r.name);
    else if (isFailingConclusion(r.conclusion)) failing.push({ name: r.name, url: r.html_url ?? r.details_url ?? null, checkRunId: Number(r.id) });
  }
  for (const s of status.statuses) {
    if (s.state === "pending") pending.push(s.context);
    else if (isFailingStatus(s.state)) failing.push({ name: s.context, url: s.target_url ?? null, checkRunId: null });
  }
  return { failing, pending };
}
