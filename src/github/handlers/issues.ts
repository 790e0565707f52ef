import type { Probot } from "probot";
import { hasMention } from "../command.js";
import { isBotSender } from "../is-bot.js";
import { repoCoords, type HandlerDeps } from "../handler-deps.js";
import { createHash } from "node:crypto";
import { deliveryJobId, jobId } from "../../queue/job-ids.js";
import { threadId } from "../../shared/thread-id.js";

/**
 * An issue opened with the trigger label arrives as `opened` and `labeled`: one job per issue and content,
 * so that is one run (an edited issue labelled again is a new request).
 */
export function issueJobId(issueId: number, text: string): string {
  return jobId("issue", issueId, createHash("sha256").update(text).digest("hex").slice(0, 16));
}

/** An issue labelled with the trigger label, or opened mentioning the app, becomes an agent task. */
export function registerIssueHandlers(app: Probot, deps: HandlerDeps): void {
  app.on(["issues.opened", "issues.labeled"], async (ctx) => {
    const { issue, sender } = ctx.payload;
    const log = deps.log.child({ deliveryId: ctx.id, number: issue.number });
    const coords = repoCoords(ctx.payload);
    if (!coords) return log.info("event without an installation: nothing to do");
    if (isBotSender(sender, deps.config.botLogins)) return log.debug("issue event by a bot: ignored");
    const label = deps.config.env.TRIGGER_LABEL.toLowerCase();
    const trigger =
      ctx.payload.action === "labeled"
        ? ctx.payload.label?.name.toLowerCase() === label
        : (issue.labels ?? []).some((l) => l.name.toLowerCase() === label) || hasMention(issue.body ?? "", deps.config.env.MENTION_HANDLES);
    if (!trigger) return;
    const text = `${issue.title}\n\n${issue.body ?? ""}`.trim();
    const id = await deps.intake.add(
      "agent",
      {
        ...coords,
        number: issue.number,
        isPullRequest: false,
        threadId: threadId({ kind: "issue", issueId: issue.id }),
        trigger: ctx.payload.action === "labeled" ? "issue_labeled" : "issue_opened",
        requester: { login: sender.login, id: sender.id },
        text,
        // An issue's body is anyone's text: it never grants a verdict.
        verdictAuthorized: false,
        comment: { kind: "issue_body", id: issue.id },
        deliveryId: ctx.id,
      },
      issueJobId(issue.id, text),
      { via: "github-webhook" },
    );
    log.info({ queue: "agent", jobId: id }, "issue enqueued");
  });

  // Closing the issue ends its thread: the sandbox goes, pending follow-ups are dropped. (A PR the
  // agent opened from the issue belongs to this thread, so closing that PR alone leaves it standing.)
  app.on("issues.closed", async (ctx) => {
    const { issue } = ctx.payload;
    const coords = repoCoords(ctx.payload);
    if (!coords) return;
    const id = await deps.intake.add(
      "cleanup",
      { ...coords, number: issue.number, threadIds: [threadId({ kind: "issue", issueId: issue.id })], merged: false, deliveryId: ctx.id },
      deliveryJobId(ctx.id),
      { via: "github-webhook" },
    );
    deps.log.child({ deliveryId: ctx.id, number: issue.number }).info({ queue: "cleanup", jobId: id }, "issue closed: cleanup enqueued");
  });
}
