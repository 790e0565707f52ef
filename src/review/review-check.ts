import { errorMessage } from "../errors.js";
import { createSettledReviewCheckRun, settleReviewCheckRun, startReviewCheckRun, type CheckOutcome, type CheckRunTarget } from "./check-run.js";
import { failureReason } from "../shared/failure-reason.js";

/**
 * The "Open SWE Review" check of one review job: opened before any work on the head the job knows,
 * moved (the old one settled as superseded) when the PR's head turns out to be newer, and settled
 * exactly once on every path. Check API failures are logged and never stop the review; a check that
 * could not be opened is created already settled.
 */
export class ReviewCheck {
  private sha: string | null = null;
  private id: number | null = null;
  private settled = false;

  constructor(private readonly t: Omit<CheckRunTarget, "headSha">) {}

  /** The head the current check is on; null before `start`. */
  get headSha(): string | null {
    return this.sha;
  }

  get checkRunId(): number | null {
    return this.id;
  }

  /** Whether a check is open (started and not settled). */
  get open(): boolean {
    return this.sha !== null && !this.settled;
  }

  async start(headSha: string): Promise<void> {
    if (this.sha === headSha && !this.settled) return;
    if (this.open) await this.settle({ conclusion: "neutral", reason: "skipped", summary: `Superseded: the pull request's head is now ${headSha.slice(0, 7)}, which this pass reviews instead.` });
    this.sha = headSha;
    this.id = null;
    this.settled = false;
    try {
      this.id = await startReviewCheckRun({ ...this.t, headSha });
    } catch (err) {
      this.t.log?.warn({ err: errorMessage(err) }, "could not create the review check run");
    }
  }

  /** Settles the open check; a no-op when none is open (never started, or already settled). */
  async settle(outcome: CheckOutcome): Promise<void> {
    if (!this.open) return;
    this.settled = true;
    const target = { ...this.t, headSha: this.sha! };
    try {
      if (this.id === null) await createSettledReviewCheckRun(target, outcome);
      else await settleReviewCheckRun(target, this.id, outcome);
    } catch (err) {
      this.t.log?.warn({ err: errorMessage(err), checkRunId: this.id }, "could not settle the review check run");
    }
  }
}

/**
 * Runs `fn` inside an "Open SWE Review" check run that is always settled: with the outcome `fn`
 * returns, or `failure` when it throws (the error is rethrown). Pass the job's `check` to settle the
 * check it already opened; otherwise one is opened on `t.headSha`.
 */
export async function withSettledCheckRun<T>(t: CheckRunTarget, fn: (checkRunId: number | null) => Promise<{ outcome: CheckOutcome; result: T }>, jobCheck?: ReviewCheck): Promise<T> {
  const check = jobCheck ?? new ReviewCheck(t);
  await check.start(t.headSha);
  let done: { outcome: CheckOutcome; result: T };
  try {
    done = await fn(check.checkRunId);
  } catch (err) {
    // The job's own check is settled by the job, which knows whether the review will be retried.
    if (!jobCheck) {
      t.log?.error({ err: errorMessage(err) }, "the review crashed");
      await check.settle({ conclusion: "failure", summary: `The review crashed: ${failureReason(err, "the pull request")}.` });
    }
    throw err;
  }
  await check.settle(done.outcome);
  return done.result;
}
