import type { CiEventJob } from "../src/queue/schemas.js";
import type { JobContext, JobOutcome } from "../src/worker/job-context.js";
import { notAvailableYet } from "../src/worker/not-available.js";

export async function processCiEvent(data: CiEventJob, ctx: JobContext): Promise<JobOutcome> {
  ctx.log.info({ kind: data.kind, name: data.name, sha: data.headSha }, "CI failure received");
  return notAvailableYet("CI autofix");
}
