import type { ReviewJob } from "../src/queue/schemas.js";
import { UnrecoverableError } from "bullmq";
import { loadRepoConfig, RepoConfigError } from "../src/config/repo-config.js";
import { errorMessage } from "../src/errors.js";
import type { Octokit } from "../src/github/app-auth.js";
import { decideAutoReview } from "../src/github/auto-review-decision.js";
import { isBotSender } from "../src/github/is-bot.js";
import { reportConfigError } from "../src/github/report-config-error.js";
import { ReviewCheck } from "../src/review/review-check.js";
import { runReview } from "../src/runs/run-review.js";
import { prRef } from "../src/shared/thread-id.js";
import { takeThreadLock } from "../src/threads/thread-run.js";
import { applyThreadModel } from "../src/worker/apply-thread-model.js";
import { authorizeRequester } from "../src/github/authorize.js";
import type { JobContext, JobOutcome } from "../src/worker/job-context.js";
import { failureReason } from "../src/shared/failure-reason.js";

/** What a failed pass's check says: the reason, and whether BullMQ will try again. */
export class ReviewPassError extends Error {}

/**
 * The review queue: a mention needs a writer; then the "Open SWE Review" check is opened on the head
 * the job knows, before any work, and settled on every path below — one pass at a time per PR (a
 * second job waits for the first and then looks at the newest head), the repo config, the auto-review
 * decision, and a review pass. A mention from a non-writer gets a reply and no check.
 */
export async function processReview(data: ReviewJob, ctx: JobContext): Promise<JobOutcome> {
  const octokit = await ctx.github.installation(data.installationId);
  const target = { owner: data.owner, repo: data.repo, number: data.number, comment: data.comment };
  if (data.trigger === "mention") {
    if (!data.requester) throw new UnrecoverableError("a mention review without a requester");
    if (!(await authorizeRequester(ctx, octokit, { ...target, login: data.requester.login }))) return { outcome: "refused" };
    if (!(await applyThreadModel(ctx, octokit, target, data))) return { outcome: "model_refused" };
  }
  const check = new ReviewCheck({ octokit, owner: data.owner, repo: data.repo, log: ctx.log });
  // An automatic pass on a head that already has a published review (a redelivery, a second event)
  // opens no check: that head's check is settled already.
  const reviewed = data.trigger === "mention" ? null : await ctx.settings.getReviewedHead(prRef(data.owner, data.repo, data.number));
  if (data.headSha && reviewed !== data.headSha) await check.start(data.headSha);
  try {
    if (!(await acquireReviewLock(ctx, data.threadId)))
      throw new ReviewPassError(`another review pass on this pull request was still running after ${ctx.config.env.REVIEW_LOCK_WAIT_SECONDS} seconds`);
    const renew = setInterval(() => void ctx.locks.extend(data.threadId, ctx.runOwner).catch(() => undefined), (ctx.config.env.RUN_LOCK_SECONDS * 1000) / 3);
    try {
      return await reviewLocked(data, ctx, octokit, check);
    } finally {
      clearInterval(renew);
      await ctx.locks.release(data.threadId, ctx.runOwner);
    }
  } catch (err) {
    await check.settle({ conclusion: "failure", summary: failureSummary(err, ctx) });
    throw err;
  }
}

function failureSummary(err: unknown, ctx: JobContext): string {
  const retried = !(err instanceof UnrecoverableError) && ctx.attempt < ctx.config.env.JOB_ATTEMPTS;
  const known = err instanceof ReviewPassError || err instanceof UnrecoverableError;
  if (!known) ctx.log.error({ err: errorMessage(err) }, "the review crashed");
  const reason = known ? err.message : `the review crashed: ${failureReason(err, "the pull request")}`;
  return `Not reviewed: ${reason}.${retried ? ` It will be retried (attempt ${ctx.attempt} of ${ctx.config.env.JOB_ATTEMPTS}).` : ""}`;
}

async function reviewLocked(data: ReviewJob, ctx: JobContext, octokit: Octokit, check: ReviewCheck): Promise<JobOutcome> {
  const target = { owner: data.owner, repo: data.repo, number: data.number, comment: data.comment };
  let pr;
  try {
    ({ data: pr } = await octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", { owner: data.owner, repo: data.repo, pull_number: data.number }));
  } catch (err) {
    throw new ReviewPassError(`GitHub did not return the pull request (${errorMessage(err).split("\n")[0]!.slice(0, 200)})`, { cause: err });
  }
  const reviewedHead = await ctx.settings.getReviewedHead(prRef(data.owner, data.repo, data.number));
  // The check belongs on the head this pass looks at: opened now for a mention that did not know it,
  // moved when the PR has a newer head than the event said (unless that head is already reviewed).
  if (data.trigger === "mention" || reviewedHead !== pr.head.sha || check.open) await check.start(pr.head.sha);
  let repoConfig;
  try {
    repoConfig = await loadRepoConfig(octokit, data.owner, data.repo);
  } catch (err) {
    if (!(err instanceof RepoConfigError)) throw err;
    await reportConfigError(octokit, err, { ...target, headSha: pr.head.sha });
    throw new UnrecoverableError(`${err.message}\n${err.details}`);
  }
  const author = pr.user?.login ?? data.author ?? "";
  const decision = decideAutoReview({
    trigger: data.trigger,
    draft: Boolean(pr.draft),
    state: pr.state === "open" ? "open" : "closed",
    repoConfig,
    authorOptedIn: author ? (await ctx.settings.getProfile(author)).autoReview : true,
    authorIsBot: isBotSender(pr.user ? { login: pr.user.login, type: pr.user.type } : null, ctx.config.botLogins),
    lastReviewedHead: reviewedHead,
    headSha: pr.head.sha,
  });
  if (!decision.review) {
    ctx.log.info({ reason: decision.reason }, "auto-review skipped");
    await check.settle(
      decision.duplicate
        ? { conclusion: "success", summary: "This head commit was already reviewed by an earlier pass; see its review." }
        : { conclusion: "neutral", reason: "skipped", summary: `Not reviewed automatically: ${decision.reason}. Comment \`@open-swe review\` to ask for a review.` },
    );
    return { outcome: "skipped", reason: decision.reason };
  }
  const result = await runReview(data, ctx, octokit, { ...pr, body: pr.body ?? null }, repoConfig, check);
  if (result.status === "skipped") return { outcome: "skipped", reason: result.reason };
  const { publish } = result;
  return {
    outcome: result.incomplete ? "incomplete" : "published",
    headSha: result.headSha,
    event: publish.event,
    action: publish.action,
    comments: publish.commentsPosted,
    threadsResolved: publish.threadsResolved,
    unreviewed: result.unreviewed.length,
    ...(result.incomplete ? { reason: result.incomplete } : {}),
  };
}

async function acquireReviewLock(ctx: JobContext, threadId: string): Promise<boolean> {
  const deadline = Date.now() + ctx.config.env.REVIEW_LOCK_WAIT_SECONDS * 1000;
  for (;;) {
    if ((await takeThreadLock(ctx, threadId)).taken) return true;
    if (Date.now() > deadline || ctx.signal.aborted) return false;
    await new Promise((r) => setTimeout(r, 500));
  }
}
