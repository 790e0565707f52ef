import { RunIndex } from "../store/run-index.js";
import { endStoppedWork, type ThreadStop } from "../threads/thread-stop.js";
import type { JobContext } from "../worker/job-context.js";
import { RunStops } from "./run-stop.js";

/**
 * A stopped run (or one stopped before it started) ends the thread's pending work: its follow-ups are
 * dropped, the next run is told, and the runs list says how many messages went with it.
 */
export async function recordStoppedWork(ctx: Pick<JobContext, "redis" | "prefix" | "followUps" | "jobId">, threadId: string): Promise<ThreadStop> {
  const by = await new RunStops(ctx.redis, ctx.prefix).requested(ctx.jobId);
  const stop = await endStoppedWork(ctx.redis, ctx.prefix, ctx.followUps, threadId, { runId: ctx.jobId, by });
  await new RunIndex(ctx.redis, ctx.prefix).update(ctx.jobId, { droppedFollowUps: stop.dropped, ...(by ? { stoppedBy: by } : {}) });
  return stop;
}
