import type { JobContext, JobOutcome } from "../src/worker/job-context.js";
import { notAvailableYet } from "../src/worker/not-available.js";

export async function processCiMonitor(_data: unknown, _ctx: JobContext): Promise<JobOutcome> {
  return notAvailableYet("The CI monitor sweep");
}
