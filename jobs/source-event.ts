import type { SourceEventJob } from "../src/queue/schemas.js";
import { jobApprovals } from "../src/approvals/approvals-service.js";
import { handleSourceEvent } from "../src/sources/intake.js";
import type { JobContext, JobOutcome } from "../src/worker/job-context.js";

/** A mention from Slack, Linear, …: re-read, identity, repository, write access, then an agent job. */
export function processSourceEvent(data: SourceEventJob, ctx: JobContext): Promise<JobOutcome> {
  return handleSourceEvent(data, ctx, jobApprovals(ctx));
}
