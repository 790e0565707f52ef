import type { ReviewJob } from "../src/queue/schemas.js";
import { loadRepoConfig, RepoConfigError } from "../src/config/repo-config.js";
import { decideAutoReview } from "../src/github/auto-review-decision.js";
import { isBotSender } from "../src/github/is-bot.js";
import { reportConfigError } from "../src/github/report-config-error.js";
import { prRef } from "../src/threads/thread-id.js";
import { authorizeRequester } from "../src/worker/authorize.js";
import type { JobContext, JobOutcome } from "../src/worker/job-context.js";
import { notAvailableYet } from "../src/worker/not-available.js";
import { UnrecoverableError } from "bullmq";

export async function processReview(data: ReviewJob, ctx: JobContext): Promise<JobOutcome> {
  const octokit = await ctx.github.installation(data.installationId);
  const target = { owner: data.owner, repo: data.repo, number: data.number, comment: data.comment };
  if (data.trigger === "mention") {
    if (!data.requester) throw new UnrecoverableError("a mention review without a requester");
    if (!(await authorizeRequester(ctx, octokit, { ...target, login: data.requester.login }))) return { outcome: "refused" };
  }
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
    return { outcome: "skipped", reason: decision.reason };
  }
  return notAvailableYet("The reviewer");
}
