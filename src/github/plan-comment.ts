import type { Command } from "./command.js";
import { deliveryJobId } from "../queue/job-ids.js";
import type { JobInput } from "../queue/schemas.js";
import { threadId } from "../shared/thread-id.js";
import type { RepoCoords } from "./handler-deps.js";

export interface CommentInput extends RepoCoords {
  deliveryId: string;
  command: Command;
  number: number;
  isPullRequest: boolean;
  /** The issue's numeric id (not its number): issue threads are keyed by it. */
  issueId: number;
  author: { login: string; id: number };
  comment: JobInput<"agent">["comment"] & {};
  /** The thread that opened this PR (our own PR): the comment continues that conversation. */
  originThreadId?: string | null;
}

export type JobPlan =
  | { queue: "agent"; jobId: string; data: JobInput<"agent"> }
  | { queue: "review"; jobId: string; data: JobInput<"review"> }
  | { queue: "command"; jobId: string; data: JobInput<"command"> };

/** The fields every comment job starts with, then `rest` (a trailing spread: cheap, unlike a leading one). */
function withBase<T extends object>(input: CommentInput, rest: T) {
  return { installationId: input.installationId, owner: input.owner, repo: input.repo, number: input.number, deliveryId: input.deliveryId, ...rest };
}

/**
 * Pure: which job (if any) a parsed `@open-swe …` comment becomes. Permission is checked by the worker.
 * On the webhook path: each job's fields are written out as one literal (properties after a leading
 * `...base` spread cost V8 a runtime call each, ~1 µs a property on Node 20).
 */
export function planCommentJob(input: CommentInput): JobPlan {
  const { command, installationId, owner, repo, number, deliveryId, author, comment } = input;
  const jobId = deliveryJobId(deliveryId);
  switch (command.kind) {
    case "task":
      return {
        queue: "agent",
        jobId,
        data: {
          installationId,
          owner,
          repo,
          number,
          deliveryId,
          isPullRequest: input.isPullRequest,
          threadId: input.isPullRequest ? (input.originThreadId ?? threadId({ kind: "pr", owner, repo, number })) : threadId({ kind: "issue", issueId: input.issueId }),
          trigger: "comment",
          requester: author,
          text: command.text,
          // The mention path is the only grant; the worker refuses the job unless the requester can write.
          verdictAuthorized: command.verdictRequested === true,
          comment,
          ...(command.model ? { model: command.model } : {}),
        },
      };
    case "review":
      if (!input.isPullRequest) {
        return {
          queue: "command",
          jobId,
          data: withBase(input, { command: "help", reason: "`review` works on pull requests; this is an issue.", requester: author, comment }),
        };
      }
      return {
        queue: "review",
        jobId,
        data: withBase(input, {
          threadId: threadId({ kind: "reviewer", owner, repo, number }),
          trigger: "mention" as const,
          requester: author,
          verdictRequested: command.verdictRequested,
          instructions: command.instructions,
          comment,
          ...(command.model ? { model: command.model } : {}),
        }),
      };
    case "autofix":
      if (!input.isPullRequest) {
        return {
          queue: "command",
          jobId,
          data: withBase(input, { command: "help", reason: "`autofix` is a per-pull-request setting; this is an issue.", requester: author, comment }),
        };
      }
      return { queue: "command", jobId, data: withBase(input, { command: "autofix", enabled: command.enabled, requester: author, comment }) };
    case "autofix_status":
      if (!input.isPullRequest) {
        return {
          queue: "command",
          jobId,
          data: withBase(input, { command: "help", reason: "`autofix` is a per-pull-request setting; this is an issue.", requester: author, comment }),
        };
      }
      return { queue: "command", jobId, data: withBase(input, { command: "autofix_status", requester: author, comment }) };
    case "fix_ci":
      if (!input.isPullRequest) {
        return {
          queue: "command",
          jobId,
          data: withBase(input, { command: "help", reason: "`fix ci` works on pull requests; this is an issue.", requester: author, comment }),
        };
      }
      return { queue: "command", jobId, data: withBase(input, { command: "fix_ci", ...(command.allowTestConfig ? { allowTestConfig: true as const } : {}), requester: author, comment }) };
    case "approval":
      return {
        queue: "command",
        jobId,
        data: withBase(input, { command: "approval", approvalId: command.id, decision: command.decision, ...(command.reason ? { reason: command.reason } : {}), requester: author, comment }),
      };
    case "help":
      return { queue: "command", jobId, data: withBase(input, { command: "help", reason: command.reason, requester: author, comment }) };
  }
}
