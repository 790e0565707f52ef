import { UnrecoverableError } from "bullmq";
import type { Octokit } from "../github/app-auth.js";
import { GitHubUnreachableError } from "../github/permission.js";
import { replyTo, type ReplyTarget } from "../github/reply.js";
import { jobId } from "../queue/job-ids.js";
import type { AgentJob, CommandJob } from "../queue/schemas.js";
import { GITHUB_UNREACHABLE_REPLY, jobHasWriteAccess } from "../worker/authorize.js";
import type { JobContext, JobOutcome } from "../worker/job-context.js";
import { approvalRequestComment, denialMessage, previewToolInput } from "./approval-comment.js";
import { ApprovalStore, type ApprovalResolution, type PendingApproval } from "./approval-store.js";
import type { PendingToolCalls } from "../runs/invoke-agent.js";
import { RunEvents } from "../observability/run-events.js";

const runEvents = (ctx: JobContext) => new RunEvents(ctx.redis, ctx.prefix, (err) => ctx.log.warn({ err: String(err) }, "could not record a run event"));

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
export type ApprovalChannel = { github: ReplyTarget } | { post: (markdown: string, approvalId: string) => Promise<void>; buttons?: boolean };

export async function requestApproval(ctx: JobContext, octokit: Octokit, data: AgentJob, channel: ApprovalChannel, pending: PendingToolCalls): Promise<PendingApproval> {
  const approval: PendingApproval = {
    id: ApprovalStore.idFor(ctx.jobId),
    threadId: data.threadId,
    job: data,
    calls: pending.actionRequests.map((c) => ({ name: c.name, preview: previewToolInput(c.args) })),
    requestedAt: Date.now(),
  };
  await approvalStore(ctx).create(approval);
  await ctx.queues.add(
    "command",
    { command: "approval_timeout", installationId: data.installationId, owner: data.owner, repo: data.repo, approvalId: approval.id, deliveryId: timeoutJobId(approval.id) },
    timeoutJobId(approval.id),
    { delay: timeoutMinutes(ctx) * 60_000 },
  );
  const body = approvalRequestComment({ id: approval.id, handle: ctx.config.env.MENTION_HANDLES[0] ?? "open-swe", requester: data.requester.login, calls: pending.actionRequests, timeoutMinutes: timeoutMinutes(ctx) });
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

/** The paused run continues on its thread from the checkpoint, with the decision. */
async function resume(ctx: JobContext, approval: PendingApproval, resolution: ApprovalResolution, message: string | undefined): Promise<string> {
  const id = jobId("approval", approval.id);
  await runEvents(ctx).emit({ type: "approval.resolved", approvalId: approval.id, threadId: approval.threadId, decision: resolution.decision, how: resolution.how, by: resolution.by, latencyMs: resolution.latencyMs });
  await ctx.queues.add(
    "agent",
    { ...approval.job, trigger: "approval", approval: { id: approval.id, decision: resolution.decision, ...(message ? { message } : {}) }, deliveryId: id },
    id,
  );
  ctx.log.info({ approvalId: approval.id, decision: resolution.decision, how: resolution.how, latencyMs: resolution.latencyMs }, "approval resolved: run resumes");
  return id;
}

const sameRepo = (a: { owner: string; repo: string }, b: { owner: string; repo: string }) => a.owner.toLowerCase() === b.owner.toLowerCase() && a.repo.toLowerCase() === b.repo.toLowerCase();

/** Someone deciding an approval, wherever they said it: their GitHub login and where to answer them. */
export interface ApprovalDecider {
  login: string;
  decision: "approve" | "deny";
  reason?: string;
  say: (markdown: string) => Promise<void>;
}

/**
 * The one decision rule, for a comment and a Slack button alike: the run's requester or a writer of its
 * repository decides (first decision wins); anyone else gets one reply and nothing changes.
 */
export async function decideApproval(ctx: JobContext, octokit: Octokit, approval: PendingApproval, d: ApprovalDecider): Promise<JobOutcome> {
  const { login } = d;
  const { owner, repo } = approval.job;
  if (login.toLowerCase() !== approval.job.requester.login.toLowerCase()) {
    let allowed: boolean;
    try {
      allowed = await jobHasWriteAccess(ctx, octokit, { owner, repo, login });
    } catch (err) {
      if (!(err instanceof GitHubUnreachableError)) throw err;
      await d.say(GITHUB_UNREACHABLE_REPLY(login)).catch(() => undefined);
      throw new UnrecoverableError(err.message);
    }
    if (!allowed) {
      ctx.log.info({ login, approvalId: approval.id }, "approval decision refused: not the requester, no write access");
      await d.say(`Thanks @${login}. Only @${approval.job.requester.login} (who asked for this run) or someone with write access to this repository can approve or deny \`${approval.id}\`, so nothing changed.`);
      return { outcome: "approval_refused", approvalId: approval.id };
    }
  }
  const store = approvalStore(ctx);
  const decision = d.decision === "approve" ? "approve" : "reject";
  const r = await store.resolve(approval, { decision, by: login, how: "person" });
  if (r.result !== "resolved") {
    const prior = await store.resolution(approval.id);
    const how = prior ? (prior.how === "timeout" ? "denied automatically when it timed out" : `${prior.decision === "approve" ? "approved" : "denied"} by @${prior.by}`) : "decided";
    await d.say(`\`${approval.id}\` was already ${how}.`);
    return { outcome: "approval_already_decided", approvalId: approval.id };
  }
  await ctx.queues.queues.command.remove(timeoutJobId(approval.id)).catch(() => undefined);
  const resumed = await resume(ctx, approval, r.resolution, decision === "reject" ? denialMessage({ by: login }, d.reason) : undefined);
  return { outcome: decision === "approve" ? "approval_approved" : "approval_denied", approvalId: approval.id, latencyMs: r.resolution.latencyMs, resumed };
}

/** `@open-swe approve|deny <id>`: only the run's requester or a repo writer decides; anyone else gets one reply. */
export async function handleApprovalCommand(data: ApprovalCommand, ctx: JobContext, octokit: Octokit): Promise<JobOutcome> {
  const target = { owner: data.owner, repo: data.repo, number: data.number, comment: data.comment };
  const approval = await approvalStore(ctx).get(data.approvalId);
  // An id from another repository is unknown here: writers of one repository never decide for another.
  if (!approval || !sameRepo(approval.job, data) || approval.job.installationId !== data.installationId) {
    await replyTo(octokit, target, `I have no approval request \`${data.approvalId}\` in this repository, so there is nothing to ${data.decision}.`);
    return { outcome: "approval_unknown", approvalId: data.approvalId };
  }
  return decideApproval(ctx, octokit, approval, { login: data.requester.login, decision: data.decision, ...(data.reason ? { reason: data.reason } : {}), say: async (text) => void (await replyTo(octokit, target, text)) });
}

/** APPROVAL_TIMEOUT_MINUTES after the request: undecided → denied, and the run continues with that denial. */
export async function handleApprovalTimeout(data: ApprovalTimeout, ctx: JobContext): Promise<JobOutcome> {
  const store = approvalStore(ctx);
  const approval = await store.get(data.approvalId);
  if (!approval) return { outcome: "approval_gone", approvalId: data.approvalId };
  const r = await store.resolve(approval, { decision: "reject", by: null, how: "timeout" });
  if (r.result !== "resolved") return { outcome: "approval_already_decided", approvalId: approval.id };
  const resumed = await resume(ctx, approval, r.resolution, denialMessage({ timeoutMinutes: timeoutMinutes(ctx) }));
  return { outcome: "approval_timed_out", approvalId: approval.id, latencyMs: r.resolution.latencyMs, resumed };
}
