import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { AgentJob } from "../queue/schemas.js";
import type { RunRecord } from "../shared/run-record.js";
import type { RunStatus } from "../store/run-index.js";
import { RunInsights, type RunFacts } from "../store/run-insights.js";

/**
 * Pure: what a run that ended adds to the Insights counters, or null for a run that only paused for
 * approval (the run that resumes it records the whole). Without a record (the run threw), the time
 * since it started is its duration and it has no model or cost.
 */
export function runFacts(o: { runId: string; data: AgentJob; status: RunStatus; record: RunRecord | null; startedAt: number; now: number; autofix?: string }): RunFacts | null {
  if (o.status === "awaiting_approval") return null;
  const r = o.record;
  return {
    runId: o.runId,
    repo: `${o.data.owner}/${o.data.repo}`,
    at: o.now,
    outcome: o.status,
    durationMs: r?.durationMs ?? Math.max(0, o.now - o.startedAt),
    ...(r ? { model: r.modelId, inputTokens: r.inputTokens, outputTokens: r.outputTokens } : {}),
    ...(r?.costUsd !== undefined ? { costUsd: r.costUsd } : {}),
    ...(o.data.trigger === "ci_fix" && o.autofix ? { autofix: o.autofix } : {}),
  };
}

/** Counts an agent run that ended for the Insights page; a failure to count is logged, never the run's. */
export async function countRun(ctx: { redis: Redis; prefix: string; jobId: string; log: Logger }, input: Omit<Parameters<typeof runFacts>[0], "runId" | "now">): Promise<void> {
  const facts = runFacts({ ...input, runId: ctx.jobId, now: Date.now() });
  if (!facts) return;
  await new RunInsights(ctx.redis, ctx.prefix).recordRun(facts).catch((err: unknown) => ctx.log.warn({ err: String(err) }, "could not count the run for insights"));
}
