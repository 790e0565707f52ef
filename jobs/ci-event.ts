import { handleCiEvent } from "../src/autofix/handle-ci-event.js";
import type { CiEventJob } from "../src/queue/schemas.js";
import type { JobContext, JobOutcome } from "../src/worker/job-context.js";

export async function processCiEvent(data: CiEventJob, ctx: JobContext): Promise<JobOutcome> {
  return handleCiEvent(data, ctx);
}
