import type { Redis } from "ioredis";
import { RunIndex } from "../store/run-index.js";
import type { ApprovalResolution, PendingApproval } from "../threads/approvals.js";

/**
 * Decided: the paused run's entry in the runs list is marked resolved with the decision and the run
 * that resumes it, and that run is listed from now (queued), pointing back at the paused one.
 */
export async function markApprovalResolved(ctx: { redis: Redis; prefix: string }, approval: PendingApproval, resolution: ApprovalResolution, resumedRunId: string): Promise<void> {
  if (!approval.runId) return;
  const index = new RunIndex(ctx.redis, ctx.prefix);
  const paused = await index.update(approval.runId, {
    status: "approval_resolved",
    approval: { id: approval.id, decision: resolution.decision, by: resolution.by, at: resolution.resolvedAt, resumedRunId },
  });
  if (!paused || (await index.get(resumedRunId))) return;
  await index.put({
    ...paused,
    runId: resumedRunId,
    trigger: "approval",
    status: "queued",
    queuedAt: resolution.resolvedAt,
    resumes: approval.runId,
    approval: undefined,
    startedAt: undefined,
    finishedAt: undefined,
  });
}
