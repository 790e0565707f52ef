import { z } from "zod";
import { SOURCE_NAMES, type SourceName } from "../shared/source-names.js";
import type { QueueName } from "./names.js";

const Repo = {
  installationId: z.number().int().positive(),
  owner: z.string().min(1),
  repo: z.string().min(1),
};
const ModelId = z.string().min(1).max(120);
/** A pending approval's id, as `@open-swe approve <id>` names it. */
export const ApprovalId = z.string().regex(/^[0-9a-f]{8}$/, "8 hex characters");
const Actor = z.object({ login: z.string().min(1), id: z.number().int() });

/** Where the request came from, so the worker can answer in the same place. */
export const CommentRef = z.object({
  kind: z.enum(["issue_comment", "review", "review_comment", "issue_body"]),
  id: z.number().int(),
});

/** A non-GitHub conversation: the source's own reference (its client zod-checks it) and the thread key. */
const SourceOrigin = <K extends SourceName>(kind: K) =>
  z.object({
    kind: z.literal(kind),
    ref: z.record(z.string(), z.unknown()),
    threadKey: z.string().min(1),
    /** The conversation before the request, as the source re-read it (bounded there). */
    context: z.string().max(200_000).optional(),
  });

/** Where an agent run was asked for and answers; `github`: the issue or PR `number`. One line per source. */
export const AgentSource = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("github") }),
  SourceOrigin("slack"),
  SourceOrigin("linear"),
  SourceOrigin("jira"),
  SourceOrigin("confluence"),
  SourceOrigin("dashboard"),
]);
export type AgentSource = z.infer<typeof AgentSource>;

export const AgentJob = z
  .object({
    ...Repo,
    source: AgentSource.default({ kind: "github" }),
    /** The issue or PR; a run asked from another source has none (it works on a new branch). */
    number: z.number().int().positive().optional(),
    isPullRequest: z.boolean().default(false),
    threadId: z.string().uuid(),
    trigger: z.enum(["comment", "issue_opened", "issue_labeled", "ci_fix", "wakeup", "follow_up", "approval"]),
    requester: Actor,
    text: z.string(),
    /** Set only by a writer's explicit mention with `--verdict` (and inherited by its wake-ups); text never grants it. */
    verdictAuthorized: z.boolean().default(false),
    /** `--model <id>`: the thread's model from this run on (highest precedence). */
    model: ModelId.optional(),
    /** ci_fix: the head commit the fix is for, where the run's "Open SWE Autofix" check goes. */
    autofixHead: z.string().min(1).optional(),
    /** ci_fix for a merge conflict: the base branch the run merges in (shared into its sandbox). */
    autofixBase: z.string().min(1).optional(),
    /** ci_fix from `@open-swe fix ci --allow-test-config` (a writer's explicit request): the push may change how tests run. */
    allowTestConfig: z.literal(true).optional(),
    comment: CommentRef.optional(),
    /** trigger `approval`: a person's (or the timeout's) decision on the thread's paused tool calls. */
    approval: z.object({ id: ApprovalId, decision: z.enum(["approve", "reject"]), message: z.string().max(2000).optional() }).optional(),
    deliveryId: z.string().min(1),
  })
  .refine((j) => j.source.kind !== "github" || j.number !== undefined, { error: "a GitHub agent job needs the issue or PR number", path: ["number"] });

export const ReviewJob = z.object({
  ...Repo,
  number: z.number().int().positive(),
  threadId: z.string().uuid(),
  trigger: z.enum(["auto", "mention", "synchronize"]),
  headSha: z.string().optional(),
  requester: Actor.optional(),
  author: z.string().optional(),
  verdictRequested: z.boolean(),
  model: ModelId.optional(),
  instructions: z.string().default(""),
  comment: CommentRef.optional(),
  deliveryId: z.string().min(1),
});

export const CiEventJob = z.object({
  ...Repo,
  kind: z.enum(["check_run", "check_suite", "workflow_run", "status", "review_feedback", "merge_conflict"]),
  name: z.string(),
  conclusion: z.string(),
  headSha: z.string(),
  headBranch: z.string().nullable(),
  prNumbers: z.array(z.number().int()),
  detailsUrl: z.string().nullable(),
  /** review_feedback: who reviewed (write access is checked by the worker) and which review. */
  reviewer: z.string().min(1).optional(),
  reviewId: z.number().int().optional(),
  deliveryId: z.string().min(1),
});

/** A PR or an issue closed: its threads are torn down. */
export const ThreadCleanupJob = z.object({
  ...Repo,
  number: z.number().int().positive(),
  threadIds: z.array(z.string().uuid()),
  merged: z.boolean(),
  deliveryId: z.string().min(1),
});

/** The scheduled lifecycle sweep: idle and orphaned sandboxes, unused shared checkouts. */
export const SweepCleanupJob = z.object({ kind: z.literal("sweep") });

export const CleanupJob = z.union([SweepCleanupJob, ThreadCleanupJob]);

/** What every command job carries: the PR/issue it was said on, who said it, and where to answer. */
const CommandOn = {
  ...Repo,
  number: z.number().int().positive(),
  requester: Actor,
  comment: CommentRef,
  deliveryId: z.string().min(1),
};

export const CommandJob = z.discriminatedUnion("command", [
  z.object({
    command: z.literal("autofix"),
    enabled: z.boolean(),
    ...CommandOn,
  }),
  z.object({
    command: z.literal("autofix_status"),
    ...CommandOn,
  }),
  z.object({
    command: z.literal("fix_ci"),
    allowTestConfig: z.literal(true).optional(),
    ...CommandOn,
  }),
  z.object({
    command: z.literal("approval"),
    approvalId: ApprovalId,
    decision: z.enum(["approve", "deny"]),
    reason: z.string().max(1000).optional(),
    ...CommandOn,
  }),
  /** Delayed by APPROVAL_TIMEOUT_MINUTES: denies the approval if nobody decided it. */
  z.object({
    command: z.literal("approval_timeout"),
    ...Repo,
    approvalId: ApprovalId,
    deliveryId: z.string().min(1),
  }),
  z.object({
    command: z.literal("help"),
    reason: z.string(),
    ...CommandOn,
  }),
]);

/** The `ci-monitor` queue's jobs: the CI sweep (`scheduled`/`manual`), the hourly `reconcile` of lost runs, and the `installations` sync from GitHub. */
export const CiMonitorJob = z.object({ reason: z.enum(["scheduled", "manual", "reconcile", "installations"]).default("scheduled") });

/** Review-style learning for one repo: `bootstrap` from its past reviews, `continual` (nightly) from our findings' outcomes. */
export const AnalyzeJob = z.object({ ...Repo, mode: z.enum(["bootstrap", "continual"]) });

/** A verified mention from a source, before the worker has re-read it, mapped its author or resolved a repo. */
export const SourceEventJob = z.object({
  source: z.enum(SOURCE_NAMES),
  threadKey: z.string().min(1),
  /** Only what the payload claims; the worker re-reads the message before trusting text or author. */
  text: z.string(),
  user: z.object({ id: z.string().min(1), name: z.string().optional(), email: z.string().optional() }),
  ref: z.record(z.string(), z.unknown()),
  repoDefaultKey: z.string().min(1).optional(),
  dedupeKey: z.string().min(1),
  /** A button click (Slack's Approve / Deny) rather than a message: decided by the approval rules, not run. */
  action: z.object({ kind: z.literal("approval"), approvalId: ApprovalId, decision: z.enum(["approve", "deny"]) }).optional(),
});

export const JOB_SCHEMAS = {
  agent: AgentJob,
  review: ReviewJob,
  "ci-event": CiEventJob,
  cleanup: CleanupJob,
  command: CommandJob,
  "ci-monitor": CiMonitorJob,
  analyze: AnalyzeJob,
  "source-event": SourceEventJob,
} as const satisfies Record<QueueName, z.ZodType>;

export type JobData<Q extends QueueName> = z.infer<(typeof JOB_SCHEMAS)[Q]>;
export type JobInput<Q extends QueueName> = z.input<(typeof JOB_SCHEMAS)[Q]>;
export type AgentJob = z.infer<typeof AgentJob>;
export type ReviewJob = z.infer<typeof ReviewJob>;
export type CiEventJob = z.infer<typeof CiEventJob>;
export type CleanupJob = z.infer<typeof CleanupJob>;
export type ThreadCleanupJob = z.infer<typeof ThreadCleanupJob>;
export type CommandJob = z.infer<typeof CommandJob>;
export type AnalyzeJob = z.infer<typeof AnalyzeJob>;
export type SourceEventJob = z.infer<typeof SourceEventJob>;
