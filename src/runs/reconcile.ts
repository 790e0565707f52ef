import { errorMessage } from "../errors.js";
import { replyTo } from "../github/reply.js";
import { jobId } from "../queue/job-ids.js";
import type { QueueSet } from "../queue/queues.js";
import type { JobContext } from "../threads/job-context.js";
import type { SourceRegistry } from "../sources/registry.js";
import { sourceChannel } from "../sources/source-run.js";
import { RunRegistry } from "../threads/run-registry.js";
import { continueIfPending } from "../threads/thread-run.js";
import { ownerJobId } from "../threads/run-owner.js";
import type { AgentRuntime } from "../threads/agent-runtime.js";

export const RECONCILE_SCHEDULER = "reconcile-sweep";
const RECONCILE_EVERY_MS = 3600_000;

/** BullMQ states in which a job still runs, or will. */
const ALIVE = new Set(["active", "waiting", "delayed", "prioritized", "waiting-children"]);

export const RUN_LOST_REPLY =
  "My run here stopped without finishing: the worker running it went away and the job is gone, so nothing more will happen for this request. Anything already pushed is kept. Ask again to start over.";

/** The hourly `reconcile` job (in the `ci-monitor` queue's scheduler family). */
export async function scheduleReconcile(queues: QueueSet): Promise<void> {
  await queues.schedule("ci-monitor", RECONCILE_SCHEDULER, { every: RECONCILE_EVERY_MS }, { name: "reconcile", data: { reason: "reconcile" }, opts: { attempts: 1 } }, "system:reconcile");
}

export interface ReconcileResult {
  checked: number;
  ended: number;
  continued: number;
  errors: number;
}

/**
 * Runs whose lock expired and whose job is gone never reached their own end: each gets a reply saying
 * so, its thread's pending follow-ups a continuation; then the sandbox sweep (orphans, idle) is queued.
 */
export async function reconcileRuns(ctx: JobContext & { sources: SourceRegistry; runtime: AgentRuntime }): Promise<ReconcileResult> {
  const registry = new RunRegistry(ctx.redis, ctx.prefix, ctx.queues.signer, ctx.log);
  const result: ReconcileResult = { checked: 0, ended: 0, continued: 0, errors: 0 };
  for (const run of await registry.list()) {
    result.checked += 1;
    const { threadId } = run.job;
    try {
      const holder = await ctx.locks.holder(threadId);
      if (holder !== null && ownerJobId(holder) === run.jobId) continue;
      const state = await ctx.queues.jobState("agent", run.jobId);
      if (ALIVE.has(state)) continue;
      // Claimed first: two reconcilers (or a retry) never reply twice.
      if (await ctx.runtime.effects.claim(`${run.jobId}:run-lost-reply`)) {
        const channel = sourceChannel(ctx, run.job);
        if (channel) await channel.client.reply(channel.origin.ref, RUN_LOST_REPLY);
        else if (run.job.number !== undefined) {
          const octokit = await ctx.github.installation(run.job.installationId);
          await replyTo(octokit, { owner: run.job.owner, repo: run.job.repo, number: run.job.number, comment: run.job.comment }, RUN_LOST_REPLY);
        }
      }
      await registry.unregister(run.jobId);
      result.ended += 1;
      ctx.log.warn({ jobId: run.jobId, threadId, state }, "reconcile: a run that vanished was ended with a reply");
      if (await continueIfPending({ ...ctx, jobId: run.jobId }, run.job)) result.continued += 1;
    } catch (err) {
      result.errors += 1;
      ctx.log.warn({ jobId: run.jobId, threadId, err: errorMessage(err) }, "reconcile: could not settle a run");
    }
  }
  const sweep = jobId("reconcile-sandbox-sweep", Math.floor(Date.now() / RECONCILE_EVERY_MS));
  await ctx.queues.add("cleanup", { kind: "sweep" }, sweep, { via: "system:reconcile" });
  return result;
}
