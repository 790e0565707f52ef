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

/** Pure: which job (if any) a parsed `@open-swe …` comment becomes. Permission is checked by the worker. */
export function planCommentJob(input: CommentInput): JobPlan {
  const { command, installationId, owner, repo, number, deliveryId, author, comment } = input;
  const jobId = deliveryJobId(deliveryId);
  const base = { installationId, owner, repo, number, deliveryId };
  switch (command.kind) {
    case "task":
      return {
        queue: "agent",
        jobId,
        data: {
          ...base,
          isPullRequest: input.isPullRequest,
          threadId: input.isPullRequest ? (input.originThreadId ?? threadId({ kind: "pr", owner, repo, number })) : threadId({ kind: "issue", issueId: input.issueId }),
          trigger: "comment",
          requester: author,
          text: command.text,
          // The mention path is the only grant; the worker refuses the job unless the requester can write.
          verdictAuthorized: command.verdictRequested === true,
          ...(command.model ? { model: command.model } : {}),
          comment,
        },
      };
    case "review":
      if (!input.isPullRequest) {
        return {
          queue: "command",
          jobId,
          data: { ...base, command: "help", reason: "`review` works on pull requests; this is an issue.", requester: author, comment },
        };
      }
      return {
        queue: "review",
        jobId,
        data: {
          ...base,
          threadId: threadId({ kind: "reviewer", owner, repo, number }),
          trigger: "mention",
          requester: author,
          verdictRequested: command.verdictRequested,
          ...(command.model ? { model: command.model } : {}),
          instructions: command.instructions,
          comment,
        },
      };
    case "autofix":
      if (!input.isPullRequest) {
        return {
          queue: "command",
          jobId,
          data: { ...base, command: "help", reason: "`autofix` is a per-pull-request setting; this is an issue.", requester: author, comment },
        };
      }
      return { queue: "command", jobId, data: { ...base, command: "autofix", enabled: command.enabled, requester: author, comment } };
    case "autofix_status":
      if (!input.isPullRequest) {
        return {
          queue: "command",
          jobId,
          data: { ...base, command: "help", reason: "`autofix` is a per-pull-request setting; this is an issue.", requester: author, comment },
        };
      }
      return { queue: "command", jobId, data: { ...base, command: "autofix_status", requester: author, comment } };
    case "fix_ci":
      if (!input.isPullRequest) {
        return {
          queue: "command",
          jobId,
          data: { ...base, command: "help", reason: "`fix ci` works on pull requests; this is an issue.", requester: author, comment },
        };
      }
      return { queue: "command", jobId, data: { ...base, command: "fix_ci", ...(command.allowTestConfig ? { allowTestConfig: true as const } : {}), requester: author, comment } };
    case "approval":
      return {
        queue: "command",
        jobId,
        data: { ...base, command: "approval", approvalId: command.id, decision: command.decision, ...(command.reason ? { reason: command.reason } : {}), requester: author, comment },
      };
    case "help":
      return { queue: "command", jobId, data: { ...base, command: "help", reason: command.reason, requester: author, comment } };
  }
}
