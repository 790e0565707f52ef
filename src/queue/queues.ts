import { Queue, type JobsOptions } from "bullmq";
import type { Redis } from "ioredis";
import { QUEUE_NAMES, type QueueName } from "./names.js";
import { JOB_SCHEMAS, type JobInput } from "./schemas.js";
import { redisNowMs } from "../shared/redis-time.js";
import type { JobSigner, Principal, Via } from "./job-provenance.js";
import { principalOf } from "./principal-of.js";

/** Every job says how its principal was established; `principal` only when it is not the payload's requester. */
export type AddOptions = JobsOptions & { via: Via; principal?: Principal };

export interface QueueSetOptions {
  connection: Redis;
  prefix: string;
  attempts: number;
  /** Signs every job's provenance; the worker verifies it before any processor runs. */
  signer: JobSigner;
  /** Queue-level errors (a lost connection, mostly); without a listener BullMQ prints each to stderr. */
  onError?: (err: Error, queue: QueueName) => void;
}

/** One BullMQ queue per job kind, sharing a connection; `add` validates the payload at the boundary. */
export class QueueSet {
  readonly queues: Record<QueueName, Queue>;
  /** BullMQ's connection (its workers use it too). */
  readonly connection: Redis;
  readonly signer: JobSigner;

  constructor(private readonly opts: QueueSetOptions) {
    this.connection = opts.connection;
    this.signer = opts.signer;
    this.queues = Object.fromEntries(
      QUEUE_NAMES.map((name) => [
        name,
        new Queue(name, {
          connection: opts.connection,
          prefix: opts.prefix,
          defaultJobOptions: {
            attempts: opts.attempts,
            backoff: { type: "exponential", delay: 2_000 },
            removeOnComplete: { age: 7 * 86400, count: 10_000 },
            removeOnFail: { age: 14 * 86400, count: 10_000 },
          },
        }),
      ]),
    ) as Record<QueueName, Queue>;
    for (const [name, q] of Object.entries(this.queues)) q.on("error", (err) => opts.onError?.(err, name as QueueName));
  }

  /**
   * A redelivered webhook maps onto an existing job id, which BullMQ keeps as the one job. A delayed job
   * is stamped with Redis's time, so it is due `delay` after now by the clock every process shares, not
   * by this host's (BullMQ would use `Date.now()`).
   */
  async add<Q extends QueueName>(name: Q, data: JobInput<Q>, jobId: string, options: AddOptions): Promise<string> {
    const { via, principal, ...jobOptions } = options;
    const stamped = jobOptions.delay && jobOptions.timestamp === undefined ? { timestamp: await redisNowMs(this.connection) } : {};
    const job = await this.queues[name].add(name, this.signed(name, data, via, principal), { ...jobOptions, ...stamped, jobId });
    return job.id ?? jobId;
  }

  /** A repeating job (BullMQ's job scheduler): its template is signed like any job, as the system. */
  async schedule<Q extends QueueName>(name: Q, schedulerId: string, repeat: { every?: number; pattern?: string }, job: { name: string; data: JobInput<Q>; opts?: JobsOptions }, via: Via): Promise<void> {
    await this.queues[name].upsertJobScheduler(schedulerId, repeat, { name: job.name, data: this.signed(name, job.data, via, undefined), ...(job.opts ? { opts: job.opts } : {}) });
  }

  /** The one place a job's data is built: zod-checked payload + its signed provenance. */
  private signed<Q extends QueueName>(name: Q, data: JobInput<Q>, via: Via, principal: Principal | undefined): object {
    const payload = JOB_SCHEMAS[name].parse(data) as object;
    return this.signer.sign(name, payload, via, principal !== undefined ? principal : principalOf(name, payload));
  }

  async close(): Promise<void> {
    await Promise.all(Object.values(this.queues).map((q) => q.close()));
  }
}
