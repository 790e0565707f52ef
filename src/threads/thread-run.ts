import { jobId } from "../queue/job-ids.js";
import { ownerJobId } from "./run-owner.js";
import type { AgentJob } from "../queue/schemas.js";
import type { JobContext } from "./job-context.js";

/** BullMQ states of a job that will never run again (or no longer exists). */
const GONE = new Set(["completed", "failed", "unknown"]);

type LockCtx = Pick<JobContext, "locks" | "jobId" | "runOwner" | "fence" | "log">;

/**
 * Takes the thread's lock for this execution, or says who holds it. An earlier execution of this same
 * job (BullMQ re-fetched it after its lock lapsed: a Redis outage, a frozen worker) is a different
 * holder: the lock moves to us only once `fence` has confirmed the job's lock is ours — from then on the
 * earlier execution's every side effect is refused — never merely because the job id matches.
 */
export async function takeThreadLock(ctx: LockCtx, threadId: string): Promise<{ taken: true } | { taken: false; holder: string }> {
  if (await ctx.locks.acquire(threadId, ctx.runOwner)) return { taken: true };
  const holder = await ctx.locks.holder(threadId);
  if (holder === ctx.runOwner) return { taken: true };
  if (holder === null) return (await ctx.locks.acquire(threadId, ctx.runOwner)) ? { taken: true } : { taken: false, holder: (await ctx.locks.holder(threadId)) ?? "" };
  if (ownerJobId(holder) !== ctx.jobId) return { taken: false, holder };
  await ctx.fence();
  if (!(await ctx.locks.takeOver(threadId, holder, ctx.runOwner))) return { taken: false, holder };
  ctx.log.warn({ threadId, holder }, "run lock of an earlier execution of this job taken over");
  return { taken: true };
}

/**
 * Takes the thread's run lock. A lock held by a job BullMQ has given up on (stalled too often, failed,
 * removed) is taken over rather than waited out until its TTL.
 */
export async function acquireRunLock(ctx: LockCtx & Pick<JobContext, "queues">, threadId: string): Promise<boolean> {
  const first = await takeThreadLock(ctx, threadId);
  if (first.taken) return true;
  const holder = first.holder;
  const state = await ctx.queues.jobState("agent", ownerJobId(holder));
  if (!GONE.has(state)) return false;
  const taken = await ctx.locks.takeOver(threadId, holder, ctx.runOwner);
  if (taken) ctx.log.warn({ threadId, holder, state }, "run lock of a finished job taken over");
  return taken;
}

/**
 * No follow-up is stranded: when the thread has no run and messages are pending (one arrived during the
 * last model call, or just as the lock was released), a continuation run is queued. Its id is derived
 * from the job that noticed, so each noticing job queues at most one; a continuation that finds the
 * thread busy or the list empty does nothing, so the messages are handled by exactly one run.
 */
export async function continueIfPending(ctx: Pick<JobContext, "locks" | "followUps" | "queues" | "jobId" | "log" | "provenance">, data: AgentJob): Promise<string | null> {
  if ((await ctx.locks.holder(data.threadId)) !== null) return null;
  const newest = await ctx.followUps.newest(data.threadId);
  if (!newest) return null;
  // A GitHub follow-up answers where it was asked; another source's answers in the thread's conversation.
  const origin = newest.origin ?? { number: data.number, isPullRequest: data.isPullRequest, requester: data.requester, comment: data.comment };
  const id = jobId("continue", data.threadId, ctx.jobId);
  await ctx.queues.add(
    "agent",
    {
      installationId: data.installationId,
      owner: data.owner,
      repo: data.repo,
      // A GitHub follow-up (it has an origin) is answered on GitHub even in a thread a Slack request began.
      source: newest.origin ? { kind: "github" as const } : data.source,
      ...(origin.number !== undefined ? { number: origin.number } : {}),
      isPullRequest: origin.isPullRequest,
      threadId: data.threadId,
      trigger: "follow_up",
      requester: origin.requester,
      text: "",
      ...(origin.comment ? { comment: origin.comment } : {}),
      deliveryId: id,
    },
    id,
    // Whoever asked the newest pending message continues the run, as themselves (never as its first requester).
    { via: ctx.provenance.via, principal: newest.origin ? { login: newest.origin.requester.login, id: newest.origin.requester.id } : { login: newest.author } },
  );
  ctx.log.info({ threadId: data.threadId, continuation: id }, "pending follow-ups: continuation queued");
  return id;
}
