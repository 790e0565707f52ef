import { handleCiEvent } from "../src/autofix/handle-ci-event.js";
import type { CiEventJob } from "../src/queue/schemas.js";
import type { JobContext, JobOutcome } from "../src/worker/job-context.js";
import { notAvailableYet } from "../src/worker/not-available.js";

export async function processCiEvent(data: CiEventJob, ctx: JobContext): Promise<JobOutcome> {
  if (data.kind === "review_feedback") return notAvailableYet("Autofix from review feedback");
  return handleCiEvent(data, ctx);
}
