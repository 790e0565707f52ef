import type { Probot } from "probot";
import { parseCommand } from "../command.js";
import { isBotSender } from "../is-bot.js";
import { planCommentJob, type CommentInput } from "../plan-comment.js";
import { repoCoords, type HandlerDeps } from "../handler-deps.js";

type MentionSource = Omit<CommentInput, "command" | "installationId" | "owner" | "repo"> & { body: string | null | undefined };

async function enqueueMention(deps: HandlerDeps, payload: Parameters<typeof repoCoords>[0], sender: { login: string; type?: string }, src: MentionSource): Promise<void> {
  // Most comments do not mention the app: the delivery's child logger is made only when there is something to say.
  const log = () => deps.log.child({ deliveryId: src.deliveryId, number: src.number });
  const coords = repoCoords(payload);
  if (!coords) return log().info("event without an installation: nothing to do");
  if (isBotSender(sender, deps.config.botLogins)) return;
  const command = parseCommand(src.body ?? "", deps.config.env.MENTION_HANDLES);
  if (!command) return;
  const plan = planCommentJob({ ...src, ...coords, command });
  const id = await deps.queues.add(plan.queue, plan.data as never, plan.jobId);
  log().info({ queue: plan.queue, jobId: id, repo: `${coords.owner}/${coords.repo}`, command: command.kind }, "mention enqueued");
}

type Sender = { login: string; id: number; type?: string };
type User = { login: string; id: number } | null | undefined;
const authorOf = (user: User, sender: Sender) => ({ login: user?.login ?? sender.login, id: user?.id ?? sender.id });

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
      author: authorOf(comment.user, sender),
      comment: { kind: "issue_comment", id: comment.id },
    });
  });

  // A review body and an inline review comment both address the app on a PR.
  const onPullRequestItem = async (
    ctx: { id: string; payload: Parameters<typeof repoCoords>[0] & { pull_request: { number: number; id: number }; sender: Sender } },
    item: { id: number; body: string | null; user: User | null },
    kind: "review" | "review_comment",
  ) => {
    const { pull_request: pr, sender } = ctx.payload;
    await enqueueMention(deps, ctx.payload, sender, {
      deliveryId: ctx.id,
      body: item.body,
      number: pr.number,
      issueId: pr.id,
      isPullRequest: true,
      author: authorOf(item.user, sender),
      comment: { kind, id: item.id },
    });
  };
  app.on("pull_request_review.submitted", (ctx) => onPullRequestItem(ctx, ctx.payload.review, "review"));
  app.on("pull_request_review_comment.created", (ctx) => onPullRequestItem(ctx, ctx.payload.comment, "review_comment"));
}
