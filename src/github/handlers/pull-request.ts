import type { Probot } from "probot";
import { isBotSender } from "../is-bot.js";
import { repoCoords, type HandlerDeps } from "../handler-deps.js";
import { deliveryJobId, reviewJobId } from "../../queue/job-ids.js";
import { prRef, threadId } from "../../shared/thread-id.js";

/**
 * opened / ready_for_review / reopened → an auto-review when the repo is enabled (the worker then
 * applies the repo config and the author's profile); synchronize → a re-review of PRs we reviewed
 * before. One job per head sha and action, so a draft marked ready is reviewed; closed → teardown.
 */
export function registerPullRequestHandlers(app: Probot, deps: HandlerDeps): void {
  app.on(["pull_request.opened", "pull_request.ready_for_review", "pull_request.reopened", "pull_request.synchronize"], async (ctx) => {
    const { pull_request: pr } = ctx.payload;
    const log = deps.log.child({ deliveryId: ctx.id, number: pr.number });
    const coords = repoCoords(ctx.payload);
    if (!coords) return log.info("event without an installation: nothing to do");
    const { owner, repo } = coords;
    if (!(await deps.settings.isRepoEnabled(`${owner}/${repo}`))) return log.debug("repo not enabled for auto-review");
    const ref = prRef(owner, repo, pr.number);
    let trigger: "auto" | "synchronize" = "auto";
    if (ctx.payload.action === "synchronize") {
      const reviewed = await deps.settings.getReviewedHead(ref);
      if (!reviewed || reviewed === pr.head.sha) return log.debug("synchronize on a PR we have not reviewed: skipped");
      trigger = "synchronize";
    }
    const reviewer = threadId({ kind: "reviewer", owner, repo, number: pr.number });
    const id = await deps.intake.add(
      "review",
      {
        ...coords,
        number: pr.number,
        threadId: reviewer,
        trigger,
        headSha: pr.head.sha,
        author: pr.user?.login ?? "",
        verdictRequested: false,
        deliveryId: ctx.id,
      },
      reviewJobId(reviewer, pr.head.sha, ctx.payload.action),
      { via: "github-webhook" },
    );
    log.info({ queue: "review", jobId: id, trigger }, "review enqueued");
  });

  // Asking the app for a review in GitHub's reviewer picker is the same as `@open-swe review`.
  app.on("pull_request.review_requested", async (ctx) => {
    const { pull_request: pr, sender } = ctx.payload;
    const requested = "requested_reviewer" in ctx.payload ? ctx.payload.requested_reviewer : null;
    if (!requested || requested.login.toLowerCase() !== `${deps.config.env.APP_SLUG}[bot]` || isBotSender(sender, deps.config.botLogins)) return;
    const coords = repoCoords(ctx.payload);
    if (!coords) return;
    const { owner, repo } = coords;
    await deps.intake.add(
      "review",
      {
        ...coords,
        number: pr.number,
        threadId: threadId({ kind: "reviewer", owner, repo, number: pr.number }),
        trigger: "mention",
        headSha: pr.head.sha,
        requester: { login: sender.login, id: sender.id },
        author: pr.user?.login ?? "",
        verdictRequested: false,
        deliveryId: ctx.id,
      },
      deliveryJobId(ctx.id),
      { via: "github-webhook" },
    );
  });

  app.on("pull_request.closed", async (ctx) => {
    const { pull_request: pr } = ctx.payload;
    const coords = repoCoords(ctx.payload);
    if (!coords) return;
    const { owner, repo } = coords;
    await deps.intake.add(
      "cleanup",
      {
        ...coords,
        number: pr.number,
        threadIds: [threadId({ kind: "pr", owner, repo, number: pr.number }), threadId({ kind: "reviewer", owner, repo, number: pr.number })],
        merged: Boolean(pr.merged),
        deliveryId: ctx.id,
      },
      deliveryJobId(ctx.id),
      { via: "github-webhook" },
    );
  });
}
