import { UnrecoverableError } from "bullmq";
import { replayBatched } from "../src/autofix/batched-events.js";
import { settleFixRunCheck, startFixRunCheck, type FixRunResult } from "../src/autofix/fix-run-check.js";
import { ApprovalStore } from "../src/approvals/approval-store.js";
import { approvalStore } from "../src/approvals/handle-approval.js";
import type { AgentJob } from "../src/queue/schemas.js";
import type { RunRecord } from "../src/shared/run-record.js";
import type { RunStatus } from "../src/store/run-index.js";
import { runAgent, type RunStart } from "../src/runs/run-agent.js";
import { SetupClock } from "../src/observability/setup-clock.js";
import { holdSandbox } from "../src/sandbox/keep-alive.js";
import { touchThreadSandbox } from "../src/sandbox/lifecycle.js";
import { RunRegistry } from "../src/threads/run-registry.js";
import { recordStoppedWork } from "../src/runs/record-stopped-work.js";
import { RunStops } from "../src/store/run-stop.js";
import { countRun } from "../src/runs/count-run.js";
import { isLastAttempt } from "../src/runs/setup-failure.js";
import { markRunFinished, markRunStarted } from "../src/runs/track-run.js";
import { acquireRunLock, continueIfPending } from "../src/threads/thread-run.js";
import { authorizeSourceRun, sourceChannel } from "../src/sources/source-run.js";
import { applyThreadModel } from "../src/worker/apply-thread-model.js";
import { authorizeRequester } from "../src/github/authorize.js";
import { replyTo } from "../src/github/reply.js";
import { followUpRefusedText } from "../src/threads/follow-ups.js";
import type { JobContext, JobOutcome } from "../src/worker/job-context.js";

/**
 * The agent queue: the requester must have write access; a request on a thread whose run is still going
 * becomes a follow-up that run reads before its next model call, instead of a second run. Whatever is
 * still pending when a run ends starts a continuation run on the same thread.
 */
export async function processAgent(data: AgentJob, ctx: JobContext): Promise<JobOutcome> {
  // Set-up is timed from pickup; the run counts as "starting" (runs under way on this worker yield to it)
  // only once its requester's rights are checked, until its first model call: a refused request never does.
  const start: RunStart = { clock: new SetupClock(), started: () => undefined };
  try {
    return await processAgentJob(data, ctx, start);
  } finally {
    start.started();
  }
}

async function processAgentJob(data: AgentJob, ctx: JobContext, start: RunStart): Promise<JobOutcome> {
  const octokit = await ctx.github.installation(data.installationId);
  const channel = sourceChannel(ctx, data);
  const target = data.number !== undefined && !channel ? { owner: data.owner, repo: data.repo, number: data.number, comment: data.comment, login: data.requester.login } : null;
  if (channel) {
    if (!(await authorizeSourceRun(ctx, octokit, data, channel))) return { outcome: "refused" };
  } else {
    if (!target) throw new UnrecoverableError("a GitHub agent job needs the issue or PR number");
    if (!(await authorizeRequester(ctx, octokit, target))) return { outcome: "refused" };
    if (!(await applyThreadModel(ctx, octokit, target, data))) return { outcome: "model_refused" };
  }
  start.started = ctx.runtime.startPriority.begin();

  // This request, for the thread's follow-up list when another run holds (or a paused approval blocks) the thread.
  const asFollowUp = () => ({
    text: data.text,
    author: data.requester.login,
    source: data.source.kind,
    at: Date.now(),
    ...(target ? { origin: { number: target.number, isPullRequest: data.isPullRequest, requester: data.requester, ...(data.comment ? { comment: data.comment } : {}) } } : {}),
  });
  // Past the thread's cap a message is not queued: its sender is told where they asked (followUpRefusedText).
  const refuseFollowUp = async (length: number): Promise<JobOutcome> => {
    const text = followUpRefusedText(ctx.followUps.cap);
    ctx.log.info({ threadId: data.threadId, length }, "follow-up refused: the thread's queue is full");
    if (channel) await channel.client.reply(channel.origin.ref, text);
    else if (target) await replyTo(octokit, target, text);
    return { outcome: "follow_up_refused", waiting: length };
  };
  const continueSafely = () =>
    continueIfPending(ctx, data).catch((err: unknown) => ctx.log.error({ err: String(err), threadId: data.threadId }, "could not queue a continuation for pending follow-ups"));
  if (!(await acquireRunLock(ctx, data.threadId))) {
    // A continuation that finds the thread busy hands its messages to the run that holds it.
    if (data.trigger === "follow_up") return { outcome: "handed_off" };
    const { length, queued } = await ctx.followUps.push(data.threadId, asFollowUp());
    if (!queued) return refuseFollowUp(length);
    ctx.log.info({ threadId: data.threadId, length }, "run active: queued as follow-up");
    // The run may have ended between our lock attempt and the push: then nobody would read it.
    await continueSafely();
    return { outcome: "follow_up", queued: length };
  }
  // A thread paused for approval takes no other run: new requests wait as follow-ups for the resumed run.
  // (A retry of the job that paused is not a new request: it pauses again on the same approval.)
  const paused = data.trigger === "approval" ? null : await approvalStore(ctx).pendingFor(data.threadId);
  if (paused !== null && paused !== ApprovalStore.idFor(ctx.jobId)) {
    const pushed = data.trigger !== "follow_up" ? await ctx.followUps.push(data.threadId, asFollowUp()) : null;
    await ctx.locks.release(data.threadId, ctx.runOwner);
    if (pushed && !pushed.queued) return refuseFollowUp(pushed.length);
    return { outcome: "awaiting_approval_follow_up" };
  }
  if (data.trigger === "follow_up" && (await ctx.followUps.length(data.threadId)) === 0) {
    await ctx.locks.release(data.threadId, ctx.runOwner);
    return { outcome: "nothing_pending" };
  }
  // Stop pressed while the job waited: it never starts.
  if (await new RunStops(ctx.redis, ctx.prefix).requested(ctx.jobId)) {
    await recordStoppedWork(ctx, data.threadId);
    await ctx.locks.release(data.threadId, ctx.runOwner);
    await markRunFinished(ctx, "stopped");
    return { outcome: "stopped" };
  }
  await markRunStarted(ctx, data);
  const startedAt = Date.now();
  let status: RunStatus = "failed";
  let finished: RunRecord | null = null;
  let thrown: unknown;
  // Until its own end below, the run is on the registry the hourly reconcile checks for runs that vanished.
  const registry = new RunRegistry(ctx.redis, ctx.prefix, ctx.queues.signer, ctx.log);
  await registry.register(ctx.jobId, data);
  // A CI fix run shows itself on the head it fixes; a fix that became a follow-up above has no check of its own.
  const fixCheck = data.trigger === "ci_fix" && data.autofixHead ? await startFixRunCheck(octokit, { owner: data.owner, repo: data.repo, headSha: data.autofixHead }, ctx.log) : null;
  let fixResult: FixRunResult = "failed";
  let testNote: string | undefined;
  const renew = setInterval(() => void ctx.locks.extend(data.threadId, ctx.runOwner).catch(() => undefined), (ctx.config.env.RUN_LOCK_SECONDS * 1000) / 3);
  const release = holdSandbox(ctx.runtime.sandboxCache, data.threadId, ctx.log);
  let ran = false;
  const endRun = async () => {
    // The idle TTL counts from the end of the run, not its start.
    await touchThreadSandbox(ctx.redis, ctx.prefix, data.threadId).catch(() => undefined);
    if (
      fixCheck !== null &&
      (await ctx.fence().then(
        () => true,
        () => false,
      ))
    )
      await settleFixRunCheck(octokit, { owner: data.owner, repo: data.repo, checkRunId: fixCheck }, fixResult, ctx.log, testNote);
    await markRunFinished(ctx, status).catch((err: unknown) => ctx.log.warn({ err: String(err) }, "could not update the runs list"));
    // A run that threw is counted once it will not be retried; a retry that ends counts it instead.
    if (ran || isLastAttempt(thrown, ctx.attempt, ctx.config.env.JOB_ATTEMPTS)) await countRun(ctx, { data, status, record: finished, startedAt, autofix: fixResult });
    await ctx.locks.release(data.threadId, ctx.runOwner);
    await registry.unregister(ctx.jobId).catch(() => undefined);
    // Red CI that arrived while this run held the thread is decided afresh now, as a fix run of its own.
    await replayBatched(ctx, data.threadId).catch((err: unknown) => ctx.log.error({ err: String(err), threadId: data.threadId }, "could not replay batched CI events"));
    // Only after a run that ended: a retried job resumes and reads them itself, and a run that failed
    // (said so to the user) must not start a chain of continuations failing the same way.
    if (ran) await continueSafely();
  };
  try {
    start.clock.lap("claim");
    const record = await runAgent(data, ctx, octokit, ctx.runtime, start);
    ran = true;
    finished = record;
    status = record.outcome;
    fixResult = record.pushedSha ? "pushed" : record.autofixGate?.rerunRuns ? "rerun" : "no_change";
    testNote = record.testNote;
    const approvalId = (record as { approvalId?: string }).approvalId;
    return {
      outcome: record.outcome,
      prUrl: record.prUrl,
      costUsd: record.costUsd,
      durationMs: record.durationMs,
      ...(approvalId ? { approvalId } : {}),
      ...(record.autofixGate ? { autofixGate: record.autofixGate.classification } : {}),
    };
  } catch (err) {
    thrown = err;
    throw err;
  } finally {
    clearInterval(renew);
    release();
    // This execution lost the job (a Redis outage): the one that has it now owns the run's end — its
    // check, its runs-list entry, its registry entry and what follows. Only our own lock is let go.
    if (ctx.lockLost()) await ctx.locks.release(data.threadId, ctx.runOwner).catch(() => undefined);
    else await endRun();
  }
}
