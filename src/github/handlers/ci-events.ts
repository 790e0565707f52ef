import type { Probot } from "probot";
import { isFailingConclusion, isFailingStatus } from "../ci-failure.js";
import { isBotSender } from "../is-bot.js";
import { isReviewFeedback } from "../review-feedback.js";
import { repoCoords, type HandlerDeps, type RepoCoords } from "../handler-deps.js";
import { deliveryJobId } from "../../queue/job-ids.js";
import type { JobInput } from "../../queue/schemas.js";

type CiEvent = Omit<JobInput<"ci-event">, keyof RepoCoords | "deliveryId">;

/** Red CI on any branch becomes a `ci-event` job; the worker decides whether it concerns an agent PR. */
export function registerCiHandlers(app: Probot, deps: HandlerDeps): void {
  const enqueue = async (deliveryId: string, payload: Parameters<typeof repoCoords>[0], event: CiEvent) => {
    const coords = repoCoords(payload);
    if (!coords) return deps.log.info({ deliveryId }, "CI event without an installation: nothing to do");
    await deps.intake.add("ci-event", { ...coords, ...event, deliveryId }, deliveryJobId(deliveryId), { via: "github-webhook" });
    deps.log.info({ deliveryId, kind: event.kind, name: event.name }, "CI failure enqueued");
  };
  const ownApp = (slug: string | undefined | null) => slug === deps.config.env.APP_SLUG;

  app.on("check_run.completed", async (ctx) => {
    const run = ctx.payload.check_run;
    if (!isFailingConclusion(run.conclusion) || ownApp(run.app?.slug)) return;
    await enqueue(ctx.id, ctx.payload, {
      kind: "check_run",
      name: run.name,
      conclusion: run.conclusion ?? "",
      headSha: run.head_sha,
      headBranch: run.check_suite?.head_branch ?? null,
      prNumbers: run.pull_requests.map((p) => p.number),
      detailsUrl: run.details_url ?? run.html_url ?? null,
    });
  });

  app.on("check_suite.completed", async (ctx) => {
    const suite = ctx.payload.check_suite;
    if (!isFailingConclusion(suite.conclusion) || ownApp(suite.app?.slug)) return;
    await enqueue(ctx.id, ctx.payload, {
      kind: "check_suite",
      name: suite.app?.name ?? "check suite",
      conclusion: suite.conclusion ?? "",
      headSha: suite.head_sha,
      headBranch: suite.head_branch ?? null,
      prNumbers: suite.pull_requests.map((p) => p.number),
      detailsUrl: null,
    });
  });

  app.on("workflow_run.completed", async (ctx) => {
    const run = ctx.payload.workflow_run;
    if (!isFailingConclusion(run.conclusion)) return;
    await enqueue(ctx.id, ctx.payload, {
      kind: "workflow_run",
      name: run.name ?? "workflow",
      conclusion: run.conclusion ?? "",
      headSha: run.head_sha,
      headBranch: run.head_branch ?? null,
      prNumbers: (run.pull_requests ?? []).flatMap((p) => (p ? [p.number] : [])),
      detailsUrl: run.html_url ?? null,
    });
  });

  // A person's review asking for changes (requested, or a body that asks) is CI-like feedback: the worker
  // may hand it to the agent that opened the PR once it has checked the reviewer's write access.
  app.on("pull_request_review.submitted", async (ctx) => {
    const { review, pull_request: pr, sender } = ctx.payload;
    if (!isReviewFeedback(review, deps.config.env.MENTION_HANDLES) || isBotSender(sender, deps.config.botLogins)) return;
    await enqueue(ctx.id, ctx.payload, {
      kind: "review_feedback",
      name: `review by ${review.user?.login ?? sender.login}`,
      conclusion: review.state,
      headSha: pr.head.sha,
      headBranch: pr.head.ref,
      prNumbers: [pr.number],
      detailsUrl: review.html_url,
      reviewer: review.user?.login ?? sender.login,
      reviewId: review.id,
    });
  });

  app.on("status", async (ctx) => {
    const p = ctx.payload;
    if (!isFailingStatus(p.state)) return;
    await enqueue(ctx.id, p, {
      kind: "status",
      name: p.context,
      conclusion: p.state,
      headSha: p.sha,
      headBranch: p.branches[0]?.name ?? null,
      prNumbers: [],
      detailsUrl: p.target_url ?? null,
    });
  });
}
