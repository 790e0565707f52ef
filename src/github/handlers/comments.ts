import type { Probot } from "probot";
import { parseCommand } from "../command.js";
import { isBotSender } from "../is-bot.js";
import { planCommentJob, type CommentInput } from "../plan-comment.js";
import { repoCoords, type HandlerDeps } from "../handler-deps.js";

type MentionSource = Omit<CommentInput, "command" | "installationId" | "owner" | "repo"> & { body: string | null | undefined };

async function enqueueMention(deps: HandlerDeps, payload: Parameters<typeof repoCoords>[0], sender: { login: string; type?: string }, src: MentionSource): Promise<void> {
  const log = deps.log.child({ deliveryId: src.deliveryId, number: src.number });
  const coords = repoCoords(payload);
  if (!coords) return log.info("event without an installation: nothing to do");
  if (isBotSender(sender, deps.config.botLogins)) return log.debug("comment by a bot: ignored");
  const command = parseCommand(src.body ?? "", deps.config.env.MENTION_HANDLES);
  if (!command) return;
  const plan = planCommentJob({ ...src, ...coords, command });
  const id = await deps.queues.add(plan.queue, plan.data as never, plan.jobId);
  log.info({ queue: plan.queue, jobId: id, repo: `${coords.owner}/${coords.repo}`, command: command.kind }, "mention enqueued");
}

/** `@open-swe …` in issue/PR comments, review bodies and inline review comments. */
export function registerCommentHandlers(app: Probot, deps: HandlerDeps): void {
  app.on("issue_comment.created", async (ctx) => {
    const { issue, comment, sender } = ctx.payload;
    await enqueueMention(deps, ctx.payload, sender, {
      deliveryId: ctx.id,
      body: comment.body,
      number: issue.number,
      issueId: issue.id,
      isPullRequest: Boolean(issue.pull_request),
      author: { login: comment.user?.login ?? sender.login, id: comment.user?.id ?? sender.id },
      comment: { kind: "issue_comment", id: comment.id },
    });
  });

  app.on("pull_request_review.submitted", async (ctx) => {
    const { pull_request: pr, review, sender } = ctx.payload;
    await enqueueMention(deps, ctx.payload, sender, {
      deliveryId: ctx.id,
      body: review.body,
      number: pr.number,
      issueId: pr.id,
      isPullRequest: true,
      author: { login: review.user?.login ?? sender.login, id: review.user?.id ?? sender.id },
      comment: { kind: "review", id: review.id },
    });
  });

  app.on("pull_request_review_comment.created", async (ctx) => {
    const { pull_request: pr, comment, sender } = ctx.payload;
    await enqueueMention(deps, ctx.payload, sender, {
      deliveryId: ctx.id,
      body: comment.body,
      number: pr.number,
      issueId: pr.id,
      isPullRequest: true,
      author: { login: comment.user?.login ?? sender.login, id: comment.user?.id ?? sender.id },
      comment: { kind: "review_comment", id: comment.id },
    });
  });
}
