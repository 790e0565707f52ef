import { githubCommentTool } from "./github-comment.js";
import { openPullRequestTool } from "./open-pull-request.js";
import { checkLogsTool, prChecksTool } from "./pr-checks.js";
import { requestReviewTool } from "./request-review.js";
import type { GitHubRunContext } from "./run-context.js";
import { scheduleWakeupTool } from "./schedule-wakeup.js";

/** The host-side GitHub tools of one agent run; they hold the credential, the sandbox never does. */
export function githubTools(ctx: GitHubRunContext, opts: { isPullRequest: boolean }) {
  return [openPullRequestTool(ctx), githubCommentTool(ctx), prChecksTool(ctx), checkLogsTool(ctx), requestReviewTool(ctx, ctx.verdictAuthorized), scheduleWakeupTool(ctx, opts.isPullRequest)];
}
