import type { CleanupJob } from "../src/queue/schemas.js";
import type { JobContext, JobOutcome } from "../src/worker/job-context.js";

/** PR closed: the thread's pending follow-ups are moot. Sandbox teardown joins when sandboxes land. */
export async function processCleanup(data: CleanupJob, ctx: JobContext): Promise<JobOutcome> {
  let dropped = 0;
  for (const id of data.threadIds) dropped += (await ctx.followUps.drain(id)).items.length;
  return { outcome: "cleaned", threads: data.threadIds.length, droppedFollowUps: dropped };
}
