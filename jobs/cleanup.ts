import type { CleanupJob } from "../src/queue/schemas.js";
import { teardownThreadSandbox } from "../src/sandbox/lifecycle.js";
import type { JobContext, JobOutcome } from "../src/worker/job-context.js";

/** PR closed: its threads' sandboxes are destroyed and pending follow-ups dropped. Idempotent. */
export async function processCleanup(data: CleanupJob, ctx: JobContext): Promise<JobOutcome> {
  let dropped = 0;
  const destroyed: string[] = [];
  for (const threadId of data.threadIds) {
    dropped += (await ctx.followUps.drain(threadId)).items.length;
    const { sandboxId } = await teardownThreadSandbox({
      redis: ctx.redis,
      keyPrefix: ctx.prefix,
      threadId,
      provider: ctx.runtime.sandboxProvider,
      cache: ctx.runtime.sandboxCache,
    });
    if (sandboxId) destroyed.push(sandboxId);
  }
  return { outcome: "cleaned", threads: data.threadIds.length, droppedFollowUps: dropped, destroyed };
}
