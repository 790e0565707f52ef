import type { Octokit } from "../github/app-auth.js";
import type { Logger } from "../logger.js";
import { errorMessage } from "../errors.js";
import { completeCheckRun, openCheckRun } from "../shared/check-runs.js";
import { AUTOFIX_CHECK_NAME } from "./skip-notice.js";

export type FixRunResult = "pushed" | "rerun" | "no_change" | "failed";

const SETTLED: Record<FixRunResult, { conclusion: "success" | "neutral" | "failure"; title: string; summary: string }> = {
  pushed: { conclusion: "success", title: "Fix pushed", summary: "Open SWE pushed a fix for the failing checks; CI runs again on the new commit." },
  rerun: { conclusion: "neutral", title: "Re-ran failed jobs", summary: "The failure looked flaky (timeouts, network, a runner that died): Open SWE re-ran only the failed jobs and changed no code." },
  no_change: { conclusion: "neutral", title: "No change made", summary: "The fix run ended without pushing; its reply on the pull request says why." },
  failed: { conclusion: "failure", title: "Fix run failed", summary: "The fix run failed before it could push; its reply on the pull request says why." },
};

/**
 * The "Open SWE Autofix" check of one fix run: in progress while it runs, then success (pushed),
 * neutral (ended without a push) or failure. A GitHub error here is logged; it never fails the run.
 */
export async function startFixRunCheck(octokit: Octokit, at: { owner: string; repo: string; headSha: string }, log: Logger): Promise<number | null> {
  try {
    return await openCheckRun(octokit, at, AUTOFIX_CHECK_NAME, { title: "Fixing", summary: "Open SWE is fixing the failing checks on this commit." });
  } catch (err) {
    log.warn({ err: errorMessage(err) }, "CI autofix: could not open the Autofix check");
    return null;
  }
}

export async function settleFixRunCheck(octokit: Octokit, at: { owner: string; repo: string; checkRunId: number }, result: FixRunResult, log: Logger, testNote?: string): Promise<void> {
  const s = SETTLED[result];
  const summary = testNote ? `${s.summary}\n\n${testNote}` : s.summary;
  await completeCheckRun(octokit, at, at.checkRunId, s.conclusion, { title: s.title, summary }).catch((err: unknown) =>
    log.warn({ err: errorMessage(err), result }, "CI autofix: could not settle the Autofix check"),
  );
}
