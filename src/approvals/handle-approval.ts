import type { Principal, Via } from "../queue/job-provenance.js";
import { UnrecoverableError } from "bullmq";
import type { Octokit } from "../github/app-auth.js";
import { GitHubUnreachableError } from "../github/permission.js";
import { replyTo, type ReplyTarget } from "../github/reply.js";
import { jobId } from "../queue/job-ids.js";
import type { AgentJob, CommandJob } from "../queue/schemas.js";
import { GITHUB_UNREACHABLE_REPLY, jobHasWriteAccess } from "../github/authorize.js";
import type { JobContext, JobOutcome } from "../threads/job-context.js";
import { approvalRequestComment, denialMessage, previewToolInput } from "./approval-comment.js";
import { ApprovalStore } from "./approval-store.js";
import type { AnsweredDecision, ApprovalPost, ApprovalResolution, DecisionRequest, DecisionResult, PendingApproval } from "../threads/approvals.js";
import type { PendingToolCalls } from "../agent/pending-tool-calls.js";
import { RunEvents } from "../observability/run-events.js";
import { markApprovalResolved } from "./mark-approval-resolved.js";

const runEvents = (ctx: Pick<JobContext, "redis" | "prefix" | "log">) => new RunEvents(ctx.redis, ctx.prefix, (err) => ctx.log.warn({ err: String(err) }, "could not record a run event"));

type ApprovalCommand = Extract<CommandJob, { command: "approval" }>;
type ApprovalTimeout = Extract<CommandJob, { command: "approval_timeout" }>;

const timeoutMinutes = (ctx: Pick<JobContext, "config">) => ctx.config.env.APPROVAL_TIMEOUT_MINUTES;

export function approvalStore(ctx: Pick<JobContext, "redis" | "prefix" | "config">): ApprovalStore {
  // Kept a day past the timeout, so a late `approve` is told it was decided rather than "unknown".
  return new ApprovalStore(ctx.redis, ctx.prefix, (timeoutMinutes(ctx) + 24 * 60) * 60_000);
}

export const timeoutJobId = (id: string) => jobId("approval-timeout", id);

/**
 * A run paused before `ask` tool calls: the approval is stored (the thread takes no other run until it
 * is decided), its timeout scheduled, and the request posted where the run's request came from.
 */
/** Where the request is posted: the GitHub issue/PR it came from, or the source conversation (Slack, Linear, …). */
export type ApprovalChannel = { github: ReplyTarget } | ApprovalPost;

export async function requestApproval(ctx: JobContext, octokit: Octokit, data: AgentJob, channel: ApprovalChannel, pending: PendingToolCalls): Promise<PendingApproval> {
  const approval: PendingApproval = {
    id: ApprovalStore.idFor(ctx.jobId),
    threadId: data.threadId,
    job: data,
    calls: pending.actionRequests.map((c) => ({ name: c.name, preview: previewToolInput(c.args) })),
    requestedAt: Date.now(),
    runId: ctx.jobId,
  };
  await approvalStore(ctx).create(approval);
  await ctx.queues.add(
    "command",
    { command: "approval_timeout", installationId: data.installationId, owner: data.owner, repo: data.repo, approvalId: approval.id, deliveryId: timeoutJobId(approval.id) },
    timeoutJobId(approval.id),
    { delay: timeoutMinutes(ctx) * 60_000, via: "system:approval-timeout" },
  );
  const body = approvalRequestComment({
    id: approval.id,
    handle: ctx.config.env.MENTION_HANDLES[0] ?? "open-swe",
    requester: data.requester.login,
    calls: pending.actionRequests,
    timeoutMinutes: timeoutMinutes(ctx),
  });
  if ("github" in channel) await replyTo(octokit, channel.github, body);
  // A comment on GitHub always decides (the write-access check is GitHub's); Slack also has buttons.
  else {
    const where = `that comment on any issue or pull request of \`${data.owner}/${data.repo}\` (the run's pull request, once it has one)`;
    await channel.post(`${body}\n\n${channel.buttons ? `Decide with the buttons below, or with ${where}.` : `Decide with ${where}.`}`, approval.id);
  }
  await runEvents(ctx).emit({ type: "approval.requested", runId: ctx.jobId, approvalId: approval.id, threadId: data.threadId, tools: approval.calls.map((c) => c.name) });
  ctx.log.info({ approvalId: approval.id, threadId: data.threadId, tools: approval.calls.map((c) => c.name) }, "run paused for approval");
  return approval;
}

/** What deciding needs: the worker's job context or the dashboard's deps both carry it. */
export type DecisionDeps = Pick<JobContext, "redis" | "prefix" | "config" | "queues" | "log">;

/** How the resumed run's job is signed: the decision's channel, and the decider (none for a timeout). */
interface ResumedBy {
  via: Via;
  principal?: Principal;
}

/** The paused run continues on its thread from the checkpoint, with the decision. */
async function resume(ctx: DecisionDeps, approval: PendingApproval, resolution: ApprovalResolution, message: string | undefined, by: ResumedBy): Promise<string> {
  const id = jobId("approval", approval.id);
  await runEvents(ctx).emit({
    type: "approval.resolved",
    approvalId: approval.id,
    threadId: approval.threadId,
    decision: resolution.decision,
    how: resolution.how,
    by: resolution.by,
    latencyMs: resolution.latencyMs,
  });
  // Listed before it is queued: a worker may start the resumed run at once, and its start keeps the
  // entry it finds (pointing back at the paused run) rather than make one that does not.
  await markApprovalResolved(ctx, approval, resolution, id).catch((err: unknown) =>
    ctx.log.warn({ err: String(err), approvalId: approval.id }, "could not mark the paused run resolved in the runs list"),
  );
  await ctx.queues.add(
    "agent",
    { ...approval.job, trigger: "approval", approval: { id: approval.id, decision: resolution.decision, ...(message ? { message } : {}) }, deliveryId: id },
    id,
    // The decider continues the run as themselves; a timeout leaves it its requester's.
    by.principal === undefined ? { via: by.via } : { via: by.via, principal: by.principal },
  );
  ctx.log.info({ approvalId: approval.id, decision: resolution.decision, how: resolution.how, latencyMs: resolution.latencyMs }, "approval resolved: run resumes");
  return id;
}

export const sameRepo = (a: { owner: string; repo: string }, b: { owner: string; repo: string }) => a.owner.toLowerCase() === b.owner.toLowerCase() && a.repo.toLowerCase() === b.repo.toLowerCase();

/** Pure: the authority rule. The run's requester decides; anyone else only with write access (asked only then). */
export function needsWriteAccess(login: string, requester: string): boolean {
  return login.toLowerCase() !== requester.toLowerCase();
}

/** Pure: how an earlier decision reads ("approved by @erin", "denied automatically when it timed out"). */
export function priorDecisionText(prior: ApprovalResolution | null): string {
  if (!prior) return "decided";
  if (prior.how === "timeout") return "denied automatically when it timed out";
  return `${prior.decision === "approve" ? "approved" : "denied"} by @${prior.by}`;
}

/**
 * One decision, from a GitHub comment or the dashboard: scope, the authority rule, first decision wins,
 * the timeout is cancelled and the run resumes with the decision.
 */
export async function decideApproval(ctx: DecisionDeps, req: DecisionRequest): Promise<DecisionResult> {
  const store = approvalStore(ctx);
  const approval = await store.get(req.approvalId);
  if (!approval || !req.inScope(approval.job)) return { result: "unknown" };
  if (needsWriteAccess(req.login, approval.job.requester.login) && !(await req.canWrite(approval.job))) {
    ctx.log.info({ login: req.login, approvalId: approval.id }, "approval decision refused: not the requester, no write access");
    return { result: "refused", approval };
  }
  const decision = req.decision === "approve" ? "approve" : "reject";
  const r = await store.resolve(approval, { decision, by: req.login, how: "person" });
  if (r.result !== "resolved") return { result: "already_decided", approval, prior: priorDecisionText(await store.resolution(approval.id)) };
  await ctx.queues.queues.command.remove(timeoutJobId(approval.id)).catch(() => undefined);
  const resumed = await resume(ctx, approval, r.resolution, decision === "reject" ? denialMessage({ by: req.login }, req.reason) : undefined, { via: req.via, principal: { login: req.login } });
  return { result: "resolved", approval, resolution: r.resolution, resumed };
}

/**
 * `decideApproval` for a person who decided somewhere they can be answered (a comment, a Slack button):
 * write access is GitHub's answer (unreachable → said, job failed), and every outcome gets one reply.
 */
export async function decideAndAnswer(ctx: JobContext, octokit: Octokit, req: AnsweredDecision): Promise<JobOutcome> {
  const { login, say } = req;
  let d: DecisionResult;
  try {
    d = await decideApproval(ctx, { ...req, via: ctx.provenance.via, canWrite: (job) => jobHasWriteAccess(ctx, octokit, { owner: job.owner, repo: job.repo, login }) });
  } catch (err) {
    if (!(err instanceof GitHubUnreachableError)) throw err;
    await say(GITHUB_UNREACHABLE_REPLY(login)).catch(() => undefined);
    throw new UnrecoverableError(err.message);
  }
  if (d.result === "unknown") {
    await say(`I have no approval request \`${req.approvalId}\` ${req.where}, so there is nothing to ${req.decision}.`);
    return { outcome: "approval_unknown", approvalId: req.approvalId };
  }
  if (d.result === "refused") {
    await say(
      `Thanks @${login}. Only @${d.approval.job.requester.login} (who asked for this run) or someone with write access to this repository can approve or deny \`${d.approval.id}\`, so nothing changed.`,
    );
    return { outcome: "approval_refused", approvalId: d.approval.id };
  }
  if (d.result === "already_decided") {
    await say(`\`${d.approval.id}\` was already ${d.prior}.`);
    return { outcome: "approval_already_decided", approvalId: d.approval.id };
  }
  return { outcome: d.resolution.decision === "approve" ? "approval_approved" : "approval_denied", approvalId: d.approval.id, latencyMs: d.resolution.latencyMs, resumed: d.resumed };
}

/** `@open-swe approve|deny <id>`: only the run's requester or a repo writer decides; anyone else gets one reply. */
export async function handleApprovalCommand(data: ApprovalCommand, ctx: JobContext, octokit: Octokit): Promise<JobOutcome> {
  const target = { owner: data.owner, repo: data.repo, number: data.number, comment: data.comment };
  return decideAndAnswer(ctx, octokit, {
    approvalId: data.approvalId,
    login: data.requester.login,
    decision: data.decision,
    reason: data.reason,
    // An id from another repository is unknown here: writers of one repository never decide for another.
    inScope: (job) => sameRepo(job, data) && job.installationId === data.installationId,
    where: "in this repository",
    say: async (text) => void (await replyTo(octokit, target, text)),
  });
}

/** APPROVAL_TIMEOUT_MINUTES after the request: undecided → denied, and the run continues with that denial. */
export async function handleApprovalTimeout(data: ApprovalTimeout, ctx: JobContext): Promise<JobOutcome> {
  const store = approvalStore(ctx);
  const approval = await store.get(data.approvalId);
  if (!approval) return { outcome: "approval_gone", approvalId: data.approvalId };
  const r = await store.resolve(approval, { decision: "reject", by: null, how: "timeout" });
  if (r.result !== "resolved") return { outcome: "approval_already_decided", approvalId: approval.id };
  const resumed = await resume(ctx, approval, r.resolution, denialMessage({ timeoutMinutes: timeoutMinutes(ctx) }), { via: "system:approval-timeout" });
  return { outcome: "approval_timed_out", approvalId: approval.id, latencyMs: r.resolution.latencyMs, resumed };
}
