import { UnrecoverableError, Worker, type Job } from "bullmq";
import type { Logger } from "pino";
import { PROCESSORS } from "../../jobs/index.js";
import { QUEUE_NAMES, type QueueName } from "../queue/names.js";
import { JOB_SCHEMAS } from "../queue/schemas.js";
import { releaseAbandonedRun } from "./release-abandoned-run.js";
import type { JobContext, JobOutcome, WorkerServices } from "./job-context.js";

export interface WorkerPool {
  workers: Worker[];
  /** Stop taking jobs; wait up to `graceMs` for running ones, then hand them back to the queue. */
  close(graceMs: number): Promise<void>;
}

export interface StartWorkersOptions {
  services: WorkerServices;
  log: Logger;
  concurrency: number;
  queues?: readonly QueueName[];
  /** Shorter lock/stall timings make stalled-job recovery testable in seconds. */
  lockDuration?: number;
  stalledInterval?: number;
  /** Replaces processors (the scale-out test uses slow ones to kill a worker mid-job). */
  processors?: Partial<Record<QueueName, (data: unknown, ctx: JobContext) => Promise<JobOutcome>>>;
}

function processorFor(name: QueueName, opts: StartWorkersOptions) {
  return async (job: Job, _token?: string, signal?: AbortSignal): Promise<JobOutcome> => {
    const log = opts.log.child({ queue: name, jobId: job.id, attempt: job.attemptsMade + 1 });
    const parsed = JOB_SCHEMAS[name].safeParse(job.data);
    if (!parsed.success) {
      log.error({ issues: parsed.error.issues.slice(0, 5) }, "invalid job payload");
      throw new UnrecoverableError(`invalid ${name} job payload: ${parsed.error.issues[0]?.message ?? "unknown"}`);
    }
    const ctx: JobContext = {
      ...opts.services,
      jobId: job.id ?? "",
      attempt: job.attemptsMade + 1,
      log,
      signal: signal ?? new AbortController().signal,
    };
    const started = Date.now();
    const processor = opts.processors?.[name] ?? (PROCESSORS[name] as (data: unknown, ctx: JobContext) => Promise<JobOutcome>);
    const result = await processor(parsed.data, ctx);
    log.info({ ...result, ms: Date.now() - started }, "job done");
    return result;
  };
}

export const CI_MONITOR_SCHEDULER = "ci-monitor-sweep";

export async function startWorkers(opts: StartWorkersOptions): Promise<WorkerPool> {
  const { services } = opts;
  const names = opts.queues ?? QUEUE_NAMES;
  const workers = names.map((name) => {
    const worker = new Worker(name, processorFor(name, opts), {
      connection: services.redis,
      prefix: services.prefix,
      concurrency: opts.concurrency,
      ...(opts.lockDuration ? { lockDuration: opts.lockDuration } : {}),
      ...(opts.stalledInterval ? { stalledInterval: opts.stalledInterval } : {}),
    });
    worker.on("error", (err) => opts.log.error({ err, queue: name }, "worker error"));
    worker.on("failed", (job, err) => {
      opts.log.warn({ queue: name, jobId: job?.id, err: err.message }, "job failed");
      if (name === "agent" && job) {
        void releaseAbandonedRun(services, job, opts.log).catch((e: unknown) => opts.log.error({ jobId: job.id, err: String(e) }, "could not release a failed run's lock"));
      }
    });
    return worker;
  });
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  // CI autofix is not built yet, so no sweep is scheduled; one an older version registered is removed,
  // or it would fail a job every 15 minutes. (The CI autofix work brings the scheduler back.)
  if (names.includes("ci-monitor")) await services.queues.queues["ci-monitor"].removeJobScheduler(CI_MONITOR_SCHEDULER);
  return {
    workers,
    async close(graceMs) {
      let timer: NodeJS.Timeout | undefined;
      const graceful = Promise.all(workers.map((w) => w.close())).then(() => "closed" as const);
      const timeout = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), graceMs)));
      const result = await Promise.race([graceful, timeout]);
      clearTimeout(timer);
      // Forced close leaves running jobs' locks to expire: another worker picks them up as stalled.
      if (result === "timeout") await Promise.all(workers.map((w) => w.close(true)));
    },
  };
}
