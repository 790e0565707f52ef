import type { CleanupJob } from "../src/queue/schemas.js";
import type { QueueSet } from "../src/queue/queues.js";
import type { SandboxConfig } from "../src/config/sandbox-config.js";
import { teardownThreadSandbox } from "../src/sandbox/lifecycle.js";
import { sweepSandboxes } from "../src/sandbox/sweep-sandboxes.js";
import type { JobContext, JobOutcome } from "../src/worker/job-context.js";

export const SANDBOX_SWEEP_SCHEDULER = "sandbox-sweep";
const SWEEP_EVERY_MS = 5 * 60_000;

/**
 * Registers (or updates) the repeating sweep; a worker process calls it once at start. A host of local
 * sandboxes schedules its own in its own queue: only it can reach its disk.
 */
export async function scheduleSandboxSweep(queues: QueueSet, config: Pick<SandboxConfig, "idleTtlMs">, hostId?: string): Promise<void> {
  // A short TTL is honoured within a fifth of it, never sweeping more than once a minute.
  const every = config.idleTtlMs > 0 ? Math.max(60_000, Math.min(SWEEP_EVERY_MS, Math.floor(config.idleTtlMs / 5))) : SWEEP_EVERY_MS;
  await queues.schedule("cleanup", SANDBOX_SWEEP_SCHEDULER, { every }, { name: "sweep", data: { kind: "sweep" }, opts: { attempts: 1 } }, "system:sandbox-sweep", hostId);
  // The one shared sweep of a deployment from before hosts had their own would sweep whichever host won it.
  if (hostId !== undefined) await queues.queues.cleanup.removeJobScheduler(SANDBOX_SWEEP_SCHEDULER);
}

/**
 * A PR or issue closed: its threads' sandboxes are destroyed and pending follow-ups dropped. Idempotent.
 * The scheduled sweep: idle and orphaned sandboxes, unused shared checkouts.
 */
export async function processCleanup(data: CleanupJob, ctx: JobContext): Promise<JobOutcome> {
  if ("kind" in data) {
    const swept = await sweepSandboxes({
      redis: ctx.redis,
      keyPrefix: ctx.prefix,
      provider: ctx.runtime.sandboxProvider,
      cache: ctx.runtime.sandboxCache,
      idleTtlMs: ctx.config.sandbox.idleTtlMs,
      orphanGraceMs: ctx.config.sandbox.orphanGraceMs,
      mirrorRoot: ctx.config.sandbox.mirrorRoot,
      host: ctx.runtime.hostId,
      log: ctx.log,
    });
    return { outcome: "swept", ...swept };
  }
  let dropped = 0;
  const destroyed: string[] = [];
  const forgotten: string[] = [];
  for (const threadId of data.threadIds) {
    dropped += (await ctx.followUps.drain(threadId)).length;
    const { sandboxId, forgotten: gone } = await teardownThreadSandbox({
      redis: ctx.redis,
      keyPrefix: ctx.prefix,
      threadId,
      provider: ctx.runtime.sandboxProvider,
      cache: ctx.runtime.sandboxCache,
      host: ctx.runtime.hostId,
    });
    if (sandboxId) destroyed.push(sandboxId);
    if (gone) forgotten.push(gone);
  }
  // `forgotten`: sandboxes on a host that is gone (never said destroyed: that host's sweep removes them).
  return { outcome: "cleaned", threads: data.threadIds.length, droppedFollowUps: dropped, destroyed, ...(forgotten.length > 0 ? { forgotten } : {}) };
}
