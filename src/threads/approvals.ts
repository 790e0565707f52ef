import type { ProbotOctokit } from "probot";
import { z } from "zod";
import type { Via } from "../queue/job-provenance.js";
import { AgentJob } from "../queue/schemas.js";
import type { JobOutcome } from "./job-context.js";

// A paused run's approval as the rooms that show and decide it see it (the dashboard, a source's buttons);
// `src/approvals/` implements `Approvals` and owns the request, the decision rule and the timeout.

/** A run paused before `ask` tool calls: what a decision needs to resume it. */
export const PendingApproval = z.object({
  id: z.string(),
  threadId: z.string(),
  /** The job that paused: the resumed run replies where it did, for the same requester. */
  job: AgentJob,
  /** Tool names and their (masked) input as shown in the request. */
  calls: z.array(z.object({ name: z.string(), preview: z.string() })),
  requestedAt: z.number().int(),
  /** The paused run (its job id), for the dashboard's link; absent on records made before it was kept. */
  runId: z.string().optional(),
});
export type PendingApproval = z.infer<typeof PendingApproval>;

export const ApprovalResolution = z.object({
  decision: z.enum(["approve", "reject"]),
  by: z.string().nullable(),
  how: z.enum(["person", "timeout"]),
  resolvedAt: z.number().int(),
  latencyMs: z.number().int().min(0),
});
export type ApprovalResolution = z.infer<typeof ApprovalResolution>;

/** How a source conversation posts an approval request (with Approve / Deny buttons where it has them). */
export interface ApprovalPost {
  post: (markdown: string, approvalId: string) => Promise<void>;
  buttons?: boolean;
}

export interface DecisionRequest {
  approvalId: string;
  login: string;
  decision: "approve" | "deny";
  reason?: string | undefined;
  /** Is this approval one this channel may decide (GitHub: same repo and installation; dashboard: a repo the viewer can write)? Otherwise "unknown". */
  inScope: (job: AgentJob) => boolean;
  /** Asked only when the decider is not the run's requester. */
  canWrite: (job: AgentJob) => Promise<boolean>;
  /** How the decider was established (the resumed run is signed with it). */
  via: Via;
}

export type DecisionResult =
  | { result: "unknown" }
  | { result: "refused"; approval: PendingApproval }
  | { result: "already_decided"; approval: PendingApproval; prior: string }
  | { result: "resolved"; approval: PendingApproval; resolution: ApprovalResolution; resumed: string };

/** A decision by a person somewhere they can be answered (a comment, a Slack button): write access is GitHub's answer. */
export type AnsweredDecision = Omit<DecisionRequest, "canWrite" | "via"> & { where: string; say: (markdown: string) => Promise<void> };

/** Paused runs: read, and decided by the one rule (`src/approvals/approvals-service.ts`; the web role hands it to the dashboard). */
export interface Approvals {
  get(id: string): Promise<PendingApproval | null>;
  /** Undecided approvals, oldest first. */
  listPending(): Promise<PendingApproval[]>;
  /** The approval a thread is paused on, if any. */
  pendingFor(threadId: string): Promise<string | null>;
  decide(req: DecisionRequest): Promise<DecisionResult>;
}

/** `Approvals` inside a job (`jobs/source-event.ts` hands it to a source's click): also the decision that answers the person. */
export interface JobApprovals extends Approvals {
  decideAndAnswer(octokit: ProbotOctokit, req: AnsweredDecision): Promise<JobOutcome>;
}
