import type { Job } from "bullmq";
import type { Logger } from "pino";
import { JOB_REPLAYED } from "../queue/consumed-jobs.js";
import { AgentJob } from "../queue/schemas.js";
import { continueIfPending } from "../threads/thread-run.js";
import type { WorkerServices } from "./job-context.js";

/**
 * An agent job BullMQ has given up on (stalled too often, or its last attempt failed) may never have
 * reached its own `finally`: its run lock is released here and pending follow-ups get their
 * continuation, instead of waiting out the lock's TTL.
 */
export async function releaseAbandonedRun(services: Pick<WorkerServices, "locks" | "followUps" | "queues">, job: Job, log: Logger): Promise<void> {
  // A job refused for its provenance, its age or as a replay never ran and queues nothing.
  if (job.failedReason?.startsWith(JOB_REPLAYED)) return;
  const signed = services.queues.signer.verify("agent", job.id ?? "", job.data, job.processedOn ?? (await services.queues.clock.now()));
  if (!signed.ok) return;
  const parsed = AgentJob.safeParse(signed.payload);
  if (!parsed.success || !job.id) return;
  // A failed attempt with retries left is not given up on.
  if ((await job.getState()) !== "failed") return;
  // A job that reached its own `finally` released the lock itself (and decided about follow-ups there);
  // only one that never got there still holds it. A failed run starts no continuation of its own.
  if (!(await services.locks.releaseJob(parsed.data.threadId, job.id))) return;
  log.warn({ jobId: job.id, threadId: parsed.data.threadId, reason: job.failedReason }, "run lock of an abandoned agent job released");
  await continueIfPending({ ...services, jobId: job.id, log, provenance: signed.provenance }, parsed.data);
}
