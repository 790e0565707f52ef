import type { Probot } from "probot";
import { parseCommand } from "../command.js";
import { isBotSender } from "../is-bot.js";
import { planCommentJob, type CommentInput } from "../plan-comment.js";
import { repoCoords, type HandlerDeps } from "../handler-deps.js";
import { markedOrigin, type PullRequestFacts } from "../../store/pr-threads.js";
import { isDismissalReply } from "../../review/dismissal.js";

type MentionSource = Omit<CommentInput, "command" | "installationId" | "owner" | "repo" | "originThreadId"> & {
  body: string | null | undefined;
  /** The PR this comment is on, to find the thread that opened it (our own PR). */
  pr?: Omit<PullRequestFacts, "owner" | "repo" | "number">;
};

async function enqueueMention(deps: HandlerDeps, payload: Parameters<typeof repoCoords>[0], sender: { login: string; type?: string }, src: MentionSource): Promise<void> {
  const coords = repoCoords(payload);
  if (!coords) return deps.log.info({ deliveryId: src.deliveryId, number: src.number }, "event without an installation: nothing to do");
  if (isBotSender(sender, deps.config.botLogins)) return;
  const command = parseCommand(src.body ?? "", deps.config.env.MENTION_HANDLES);
  if (!command) return;
  // Only a task continues a conversation. The PR's marker is read here; the recorded origin (Redis, never
  // GitHub) is read by `QueueSet.add` in the same round trip as the thread's host route.
  // Objects here are written out field by field: a leading spread makes V8 define each later field by a runtime call.
  const { owner, repo } = coords;
  const pr = command.kind === "task" && src.pr ? { owner, repo, number: src.number, body: src.pr.body, authorLogin: src.pr.authorLogin, head: src.pr.head } : null;
  const plan = planCommentJob({
    installationId: coords.installationId,
    owner,
    repo,
    deliveryId: src.deliveryId,
    number: src.number,
    isPullRequest: src.isPullRequest,
    issueId: src.issueId,
    author: src.author,
    comment: src.comment,
    command,
    originThreadId: pr ? markedOrigin(pr, `${deps.config.env.APP_SLUG}[bot]`) : null,
  });
  const id = await deps.intake.add(plan.queue, plan.data as never, plan.jobId, { via: "github-webhook", ...(pr ? { threadFrom: deps.prThreads.originKeys(pr) } : {}) });
  deps.log.info({ deliveryId: src.deliveryId, number: src.number, queue: plan.queue, jobId: id, repo: `${owner}/${repo}`, command: command.kind }, "mention enqueued");
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
      ...(issue.pull_request ? { pr: { body: issue.body, authorLogin: issue.user?.login } } : {}),
    });
  });

  // A review body and an inline review comment both address the app on a PR.
  const onPullRequestItem = async (
    ctx: {
      id: string;
      payload: Parameters<typeof repoCoords>[0] & {
        pull_request: { number: number; id: number; body: string | null; user: { login: string } | null; head: { ref: string; repo: { full_name: string } | null } };
        sender: Sender;
      };
    },
    item: { id: number; body: string | null; user: User | null; in_reply_to_id?: number },
    kind: "review" | "review_comment",
  ) => {
    const { pull_request: pr, sender } = ctx.payload;
    // "@open-swe won't fix" on a review thread dismisses the finding (the reviewer's next pass reads it): not a task.
    if (kind === "review_comment" && item.in_reply_to_id !== undefined && isDismissalReply(item.body ?? "")) {
      return deps.log.info({ deliveryId: ctx.id, number: pr.number }, "dismissing reply on a review thread: left to the reviewer, no run");
    }
    await enqueueMention(deps, ctx.payload, sender, {
      deliveryId: ctx.id,
      body: item.body,
      number: pr.number,
      issueId: pr.id,
      isPullRequest: true,
      author: authorOf(item.user, sender),
      comment: { kind, id: item.id },
      // The head's repository decides whether its branch name may name a thread (a fork's never does).
      pr: { body: pr.body, authorLogin: pr.user?.login, head: { ref: pr.head.ref, repo: pr.head.repo?.full_name ?? null } },
    });
  };
  app.on("pull_request_review.submitted", (ctx) => onPullRequestItem(ctx, ctx.payload.review, "review"));
  app.on("pull_request_review_comment.created", (ctx) => onPullRequestItem(ctx, ctx.payload.comment, "review_comment"));
}
