import type { AnalyzeJob } from "../src/queue/schemas.js";
import { analyzeReviewStyle } from "../src/runs/analyze-style.js";
import type { JobContext, JobOutcome } from "../src/worker/job-context.js";

/** The analyze queue: learn (bootstrap) or refine (continual, nightly) a repo's review style. */
export async function processAnalyze(data: AnalyzeJob, ctx: JobContext): Promise<JobOutcome> {
  return analyzeReviewStyle(data, ctx);
}
