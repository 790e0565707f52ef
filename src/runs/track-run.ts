import type { AgentJob } from "../queue/schemas.js";
import { RunIndex, type RunEntry, type RunStatus } from "../store/run-index.js";
import type { JobContext } from "../threads/job-context.js";

/** The runs list's entry for a job that is starting: the one queued by the dashboard, or a new one for a GitHub request. */
export async function markRunStarted(ctx: JobContext, data: AgentJob): Promise<void> {
  const index = new RunIndex(ctx.redis, ctx.prefix);
  const now = Date.now();
  const existing = await index.get(ctx.jobId);
  const base: RunEntry = existing ?? {
    runId: ctx.jobId,
    repo: `${data.owner}/${data.repo}`,
    threadId: data.threadId,
    trigger: data.trigger,
    source: data.source.kind,
    requester: data.requester.login,
    title: data.text.split("\n")[0]!.slice(0, 200),
    request: data.text.slice(0, 20_000),
    status: "queued",
    queuedAt: now,
  };
  // Already running when a job starts: the attempt before it died mid-run and this one takes over.
  const crashed = existing?.status === "running";
  await index.put({ ...base, status: "running", ...(crashed ? { crashResumedAt: now } : { startedAt: now }) });
}

export async function markRunFinished(ctx: JobContext, status: RunStatus): Promise<void> {
  const index = new RunIndex(ctx.redis, ctx.prefix);
  // A decision that came before this paused run's end was written keeps its "resolved".
  const decided = status === "awaiting_approval" && (await index.get(ctx.jobId))?.approval !== undefined;
  await index.update(ctx.jobId, { ...(decided ? {} : { status }), finishedAt: Date.now() });
}
