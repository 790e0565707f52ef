import { sweepCiMonitor } from "../src/autofix/ci-monitor.js";
import { syncInstallations } from "../src/github/sync-installations.js";
import type { JobData } from "../src/queue/schemas.js";
import { reconcileRuns } from "../src/runs/reconcile.js";
import type { JobContext, JobOutcome } from "../src/worker/job-context.js";

export async function processCiMonitor(data: JobData<"ci-monitor">, ctx: JobContext): Promise<JobOutcome> {
  if (data.reason === "installations") return { outcome: "synced", ...(await syncInstallations(ctx)) };
  if (data.reason === "reconcile") return { outcome: "reconciled", ...(await reconcileRuns(ctx)) };
  return { outcome: "swept", ...(await sweepCiMonitor(ctx)) };
}
