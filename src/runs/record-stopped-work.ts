import { RunIndex } from "../store/run-index.js";
import { endStoppedWork, type ThreadStop } from "../threads/thread-stop.js";
import type { Redis } from "ioredis";
import type { FollowUpQueue } from "../threads/follow-ups.js";
import { RunStops } from "../store/run-stop.js";

/**
 * A stopped run (or one stopped before it started) ends the thread's pending work: its follow-ups are
 * dropped, the next run is told, and the runs list says how many messages went with it.
 */
export async function recordStoppedWork(ctx: { redis: Redis; prefix: string; followUps: FollowUpQueue; jobId: string }, threadId: string): Promise<ThreadStop> {
  const by = await new RunStops(ctx.redis, ctx.prefix).requested(ctx.jobId);
  const stop = await endStoppedWork(ctx.redis, ctx.prefix, ctx.followUps, threadId, { runId: ctx.jobId, by });
  await new RunIndex(ctx.redis, ctx.prefix).update(ctx.jobId, { droppedFollowUps: stop.dropped, ...(by ? { stoppedBy: by } : {}) });
  return stop;
}
