import type { ReviewJob } from "../src/queue/schemas.js";
import { loadRepoConfig, RepoConfigError } from "../src/config/repo-config.js";
import { decideAutoReview } from "../src/github/auto-review-decision.js";
import { isBotSender } from "../src/github/is-bot.js";
import { reportConfigError } from "../src/github/report-config-error.js";
import { runReview } from "../src/runs/run-review.js";
import { prRef } from "../src/threads/thread-id.js";
import { applyThreadModel } from "../src/worker/apply-thread-model.js";
import { authorizeRequester } from "../src/worker/authorize.js";
import type { JobContext, JobOutcome } from "../src/worker/job-context.js";
import { UnrecoverableError } from "bullmq";
import { REVIEW_CHECK_NAME } from "../src/review/check-run.js";

const LOCK_WAIT_MS = 5 * 60_000;

/**
 * The review queue: a mention needs a writer; then, one pass at a time per PR (a second job waits for
 * the first and then looks at the newest head), the repo config and the auto-review decision, and a
 * review pass.
 */
export async function processReview(data: ReviewJob, ctx: JobContext): Promise<JobOutcome> {
  const octokit = await ctx.github.installation(data.installationId);
  const target = { owner: data.owner, repo: data.repo, number: data.number, comment: data.comment };
  if (data.trigger === "mention") {
    if (!data.requester) throw new UnrecoverableError("a mention review without a requester");
    if (!(await authorizeRequester(ctx, octokit, { ...target, login: data.requester.login }))) return { outcome: "refused" };
    if (!(await applyThreadModel(ctx, octokit, target, data))) return { outcome: "model_refused" };
  }
  if (!(await acquireReviewLock(ctx, data.threadId))) throw new Error("another review pass on this pull request is still running");
  const renew = setInterval(() => void ctx.locks.extend(data.threadId, ctx.jobId).catch(() => undefined), (ctx.config.env.RUN_LOCK_SECONDS * 1000) / 3);
  try {
    return await reviewLocked(data, ctx, octokit);
  } finally {
    clearInterval(renew);
    await ctx.locks.release(data.threadId, ctx.jobId);
  }
}

async function reviewLocked(data: ReviewJob, ctx: JobContext, octokit: Awaited<ReturnType<JobContext["github"]["installation"]>>): Promise<JobOutcome> {
  const target = { owner: data.owner, repo: data.repo, number: data.number, comment: data.comment };
  const { data: pr } = await octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", {
    owner: data.owner,
    repo: data.repo,
    pull_number: data.number,
  });
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
    lastReviewedHead: await ctx.settings.getReviewedHead(prRef(data.owner, data.repo, data.number)),
    headSha: pr.head.sha,
  });
  if (!decision.review) {
    ctx.log.info({ reason: decision.reason }, "auto-review skipped");
    // A skip the author could act on is shown, quietly, as a neutral check; dedupe and closed PRs are not.
    if (decision.visible) await showSkippedReview(octokit, data, pr.head.sha, decision.reason);
    return { outcome: "skipped", reason: decision.reason };
  }
  const result = await runReview(data, ctx, octokit, { ...pr, body: pr.body ?? null }, repoConfig);
  if (result.status === "skipped") return { outcome: "skipped", reason: result.reason };
  const { publish } = result;
  return {
    outcome: "published",
    headSha: result.headSha,
    event: publish.event,
    action: publish.action,
    comments: publish.commentsPosted,
    threadsResolved: publish.threadsResolved,
    unreviewed: result.unreviewed.length,
  };
}

async function showSkippedReview(octokit: Awaited<ReturnType<JobContext["github"]["installation"]>>, data: ReviewJob, headSha: string, reason: string): Promise<void> {
  await octokit.request("POST /repos/{owner}/{repo}/check-runs", {
    owner: data.owner,
    repo: data.repo,
    name: REVIEW_CHECK_NAME,
    head_sha: headSha,
    status: "completed",
    conclusion: "neutral",
    output: { title: "Not reviewed", summary: `Not reviewed automatically: ${reason}. Comment \`@open-swe review\` to ask for a review.` },
  });
}

async function acquireReviewLock(ctx: JobContext, threadId: string): Promise<boolean> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    if ((await ctx.locks.acquire(threadId, ctx.jobId)) || (await ctx.locks.holder(threadId)) === ctx.jobId) return true;
    if (Date.now() > deadline || ctx.signal.aborted) return false;
    await new Promise((r) => setTimeout(r, 500));
  }
}
