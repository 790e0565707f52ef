import { UnrecoverableError, WaitingError, Worker, type Job } from "bullmq";
import type { Logger } from "pino";
import { rateLimitedLog } from "../logger.js";
import { QUEUE_NAMES, type QueueName } from "../queue/names.js";
import { hostQueueName, isHostQueue } from "../queue/host-routes.js";
import { jobDuration } from "../observability/metrics.js";
import { JOB_EXPIRED, JobSigner, NO_PROVENANCE } from "../queue/job-provenance.js";
import { ConsumedJobs, JOB_REPLAYED } from "../queue/consumed-jobs.js";
import { JOB_SCHEMAS } from "../queue/schemas.js";
import { RunStops, STOP_REASON } from "../store/run-stop.js";
import { releaseAbandonedRun } from "./release-abandoned-run.js";
import { LockLostError } from "../shared/lock-lost.js";
import { JobLockWatch } from "./job-lock-watch.js";
import { runOwner } from "../threads/run-owner.js";
import type { JobContext, JobOutcome, WorkerServices } from "./job-context.js";

export interface WorkerPool {
  workers: Worker[];
  /**
   * Stop taking jobs; wait up to `graceMs` for running ones, then abort them through their AbortSignal
   * (each goes back to the queue, attempt not spent) and return within a few seconds, Redis up or not.
   */
  close(graceMs: number): Promise<void>;
}

/** The abort reason a job sees when the worker shuts down under it. */
export const SHUTDOWN_REASON = "worker shutting down";

/** The start of BullMQ's error when a job lock it holds could not be renewed (bullmq/src/classes/lock-manager.ts). */
const RENEWAL_FAILED = "could not renew lock for job";

/** After the grace: time for aborted jobs to unwind and go back to the queue; then for the connections. */
const ABORT_SETTLE_MS = 2_500;
const FORCE_CLOSE_MS = 1_000;

const within = <T>(p: Promise<T>, ms: number): Promise<T | "timeout"> => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), ms)))]).finally(() => clearTimeout(timer));
};

export interface StartWorkersOptions {
  services: WorkerServices;
  log: Logger;
  concurrency: number;
  queues?: readonly QueueName[];
  /**
   * One processor per queue this pool runs: `jobs/`' table (`PROCESSORS`), handed in by the entry
   * (`src/main.ts`) — the pool runs them, it does not know them (the scale-out test passes slow ones).
   */
  processors: Partial<Record<QueueName, (data: unknown, ctx: JobContext) => Promise<JobOutcome>>>;
}

/** `bullName`: the BullMQ queue the job sits in — `name` itself, or its host queue `name@host`. */
function processorFor(name: QueueName, bullName: string, opts: StartWorkersOptions, watch: JobLockWatch, consumed: ConsumedJobs) {
  return async (job: Job, token?: string, bullSignal?: AbortSignal): Promise<JobOutcome> => {
    const log = opts.log.child({ queue: name, jobId: job.id, attempt: job.attemptsMade + 1 });
    // Before anything else: a job added by hand (bull-board, redis-cli, a script), copied under another id,
    // past its age or run before acts as nobody. One line for it: the `failed` listener's, with this message.
    const { queues } = opts.services;
    const signed = queues.signer.verify(name, job.id ?? "", job.data, await queues.clock.now());
    if (!signed.ok) throw new UnrecoverableError(signed.expired ? `${JOB_EXPIRED} (${signed.reason})` : `${NO_PROVENANCE} (${signed.reason})`);
    const { sig, exp } = JobSigner.issueOf(job.data as object)!;
    if (await consumed.consumed(name, job.id ?? "", sig)) throw new UnrecoverableError(JOB_REPLAYED);
    const ranToItsEnd = async () => consumed.record(name, job.id ?? "", sig, exp, await queues.clock.now());
    const parsed = JOB_SCHEMAS[name].safeParse(signed.payload);
    if (!parsed.success) {
      log.error({ issues: parsed.error.issues.slice(0, 5) }, "invalid job payload");
      throw new UnrecoverableError(`invalid ${name} job payload: ${parsed.error.issues[0]?.message ?? "unknown"}`);
    }
    // This execution acts only while the job's lock is its own: lost, its signal aborts and `fence` throws.
    const execution = watch.start(bullSignal, bullName, job.id ?? "", token ?? "");
    const ctx: JobContext = {
      ...opts.services,
      jobId: job.id ?? "",
      attempt: job.attemptsMade + 1,
      runOwner: runOwner(job.id ?? "", token ?? ""),
      fence: () => execution.fence(),
      lockLost: () => execution.lost(),
      log,
      signal: execution.signal,
      provenance: signed.provenance,
    };
    try {
      // A success is recorded once BullMQ has moved the job to completed (the `completed` listener): recorded
      // before, a failover that lost the completion but not the record refused the job's own re-run as a replay.
      return await runJob(name, opts, job, token, parsed.data, ctx);
    } catch (err) {
      // A failure for good is an end too; a retry to come, a job sent back to waiting or a lost lock is not.
      if (endsTheJob(err, job)) await ranToItsEnd().catch((e: unknown) => log.warn({ err: String(e) }, "could not record the job as run"));
      throw err;
    } finally {
      execution.end();
    }
  };
}

/** Pure: whether a processor's throw is the job's last execution (BullMQ will not run this id again). */
export function endsTheJob(err: unknown, job: Pick<Job, "attemptsMade" | "opts">): boolean {
  if (err instanceof WaitingError || err instanceof LockLostError) return false;
  if (err instanceof UnrecoverableError) return true;
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

async function runJob(name: QueueName, opts: StartWorkersOptions, job: Job, token: string | undefined, data: unknown, ctx: JobContext): Promise<JobOutcome> {
  const { signal, log } = ctx;
  const started = Date.now();
  const processor = opts.processors[name]!;
  let result: JobOutcome;
  try {
    result = await processor(data, ctx);
    jobDuration.observe({ queue: name, result: "completed" }, (Date.now() - started) / 1000);
  } catch (err) {
    jobDuration.observe({ queue: name, result: "failed" }, (Date.now() - started) / 1000);
    // A stopped run is not retried: the person who pressed Stop meant it.
    if (signal.aborted && signal.reason === STOP_REASON) throw new UnrecoverableError(STOP_REASON);
    if (!ctx.lockLost() && !(signal.aborted && signal.reason === SHUTDOWN_REASON)) throw err;
    result = { outcome: "aborted" };
  }
  if (ctx.lockLost()) {
    // Whoever holds the lock now (or the stalled check) runs the job. A lock still ours after all (the
    // lease lapsed on a stalled event loop) sends the job back to waiting without spending an attempt.
    const back = await job.moveToWait(token).then(
      () => true,
      () => false,
    );
    // The warning was the watch's, the moment the lock went; this is only where the execution ended.
    log.info({ ms: Date.now() - started, returned: back }, "the execution that lost its job lock has stopped");
    if (back) throw new WaitingError();
    throw new LockLostError(ctx.jobId);
  }
  if (signal.aborted && signal.reason === SHUTDOWN_REASON) {
    // Back to the waiting list for another worker, without spending an attempt; if Redis is down this
    // throws, and the job's lock expiring hands it on instead.
    await job.moveToWait(token);
    log.warn({ ms: Date.now() - started }, "job aborted by shutdown: returned to the queue");
    throw new WaitingError();
  }
  // Scheduled sweeps run every few minutes: their line is for debugging, not the operator's log.
  log[isSweep(name, data) ? "debug" : "info"]({ ...result, ms: Date.now() - started }, "job done");
  return result;
}

/** A scheduled housekeeping job (the CI sweep, the reconcile, the sandbox sweep), not someone's request. */
export function isSweep(queue: string, data: unknown): boolean {
  const d = data as { reason?: string; kind?: string };
  return (queue === "ci-monitor" && (d.reason === "scheduled" || d.reason === "reconcile")) || (queue === "cleanup" && d.kind === "sweep");
}

export async function startWorkers(opts: StartWorkersOptions): Promise<WorkerPool> {
  const { services } = opts;
  const names = opts.queues ?? QUEUE_NAMES;
  const missing = names.filter((name) => !opts.processors[name]);
  if (missing.length > 0) throw new Error(`no processor for queue ${missing.join(", ")}`);
  const workerError = rateLimitedLog(opts.log, "worker error", 30_000, "error");
  const env = services.config.env;
  const byName = new Map<string, Worker>();
  const watch = new JobLockWatch({
    redis: services.queues.connection,
    prefix: services.prefix,
    lockDurationMs: env.QUEUE_LOCK_DURATION_MS,
    log: opts.log,
    extend: (queue, ids, tokens, ms) => byName.get(queue)?.extendJobLocks(ids, tokens, ms) ?? Promise.resolve(ids),
  });
  // A host (local sandboxes) also consumes its own queue of the threads whose sandbox lives here.
  // (Tests may start workers without a runtime: no host queue then.)
  const hostId = services.runtime?.hostId;
  const consumedJobs = new ConsumedJobs(services.queues.connection, services.prefix);
  const consumed = names.flatMap((name) => [{ name, bullName: name as string }, ...(hostId && isHostQueue(name) ? [{ name, bullName: hostQueueName(name, hostId) }] : [])]);
  const workers = consumed.map(({ name, bullName }) => {
    const worker = new Worker(bullName, processorFor(name, bullName, opts, watch, consumedJobs), {
      connection: services.queues.connection,
      prefix: services.prefix,
      concurrency: opts.concurrency,
      lockDuration: env.QUEUE_LOCK_DURATION_MS,
      stalledInterval: env.QUEUE_STALLED_INTERVAL_MS,
      maxStalledCount: env.QUEUE_MAX_STALLED_COUNT,
    });
    byName.set(bullName, worker);
    worker.on("error", (err) => {
      // BullMQ's own renewal failing is also a `lockRenewalFailed` event: the watch re-checks and says it once.
      if (err.message.startsWith(RENEWAL_FAILED)) opts.log.debug({ err: err.message, queue: name }, "BullMQ could not renew a job lock");
      else workerError({ err: err.message, queue: name });
    });
    // A renewal BullMQ could not make, or a job it found stalled: the execution here stops at once.
    worker.on("lockRenewalFailed", (ids) => void watch.recheck(ids));
    worker.on("stalled", (id) => void watch.recheck([id]));
    worker.on("completed", (job) => {
      const issued = JobSigner.issueOf(job.data as object);
      if (!issued) return;
      void services.queues.clock
        .now()
        .then((now) => consumedJobs.record(name, job.id ?? "", issued.sig, issued.exp, now))
        .catch((e: unknown) => opts.log.warn({ queue: name, jobId: job.id, err: String(e) }, "could not record the job as run"));
    });
    worker.on("failed", (job, err) => {
      opts.log.warn({ queue: name, jobId: job?.id, err: err.message }, "job failed");
      if (name === "agent" && job) {
        void releaseAbandonedRun(services, job, opts.log).catch((e: unknown) => opts.log.error({ jobId: job.id, err: String(e) }, "could not release a failed run's lock"));
      }
    });
    return worker;
  });
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  // Stop (dashboard): the worker running the job aborts it through its signal; other workers ignore it.
  const agentWorkers = workers.filter((_, i) => consumed[i]!.name === "agent");
  const unlisten =
    agentWorkers.length > 0
      ? await new RunStops(services.redis, services.prefix).listen((runId) => {
          if (agentWorkers.some((w) => w.cancelJob(runId, STOP_REASON))) opts.log.info({ jobId: runId }, "run stopped from the dashboard");
        })
      : async () => undefined;
  return {
    workers,
    async close(graceMs) {
      await within(unlisten(), 500);
      const graceful = Promise.all(workers.map((w) => w.close())).then(() => "closed" as const);
      if ((await within(graceful, graceMs)) === "closed") return;
      opts.log.warn({ graceMs }, "shutdown grace over: aborting running jobs, which go back to the queue");
      for (const w of workers) w.cancelAllJobs(SHUTDOWN_REASON);
      if ((await within(graceful, ABORT_SETTLE_MS)) === "closed") return;
      // A processor that ignores its signal, or a Redis that does not answer: stop waiting. Unfinished
      // jobs keep their lock until it expires, then another worker takes them as stalled.
      await within(Promise.all(workers.map((w) => w.disconnect())), FORCE_CLOSE_MS);
      opts.log.warn("workers did not close in time; leaving unfinished jobs to stalled-job recovery");
    },
  };
}
