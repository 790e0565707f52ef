import { sweepCiMonitor } from "../src/autofix/ci-monitor.js";
import type { JobData } from "../src/queue/schemas.js";
import type { JobContext, JobOutcome } from "../src/worker/job-context.js";

export async function processCiMonitor(_data: JobData<"ci-monitor">, ctx: JobContext): Promise<JobOutcome> {
  return { outcome: "swept", ...(await sweepCiMonitor(ctx)) };
}
