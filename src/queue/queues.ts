import { Queue, type JobsOptions } from "bullmq";
import type { Redis } from "ioredis";
import { QUEUE_NAMES, type QueueName } from "./names.js";
import { JOB_SCHEMAS, type JobInput } from "./schemas.js";
import { redisNowMs } from "../shared/redis-time.js";

export interface QueueSetOptions {
  connection: Redis;
  prefix: string;
  attempts: number;
  /** Queue-level errors (a lost connection, mostly); without a listener BullMQ prints each to stderr. */
  onError?: (err: Error, queue: QueueName) => void;
}

/** One BullMQ queue per job kind, sharing a connection; `add` validates the payload at the boundary. */
export class QueueSet {
  readonly queues: Record<QueueName, Queue>;
  /** BullMQ's connection (its workers use it too). */
  readonly connection: Redis;

  constructor(private readonly opts: QueueSetOptions) {
    this.connection = opts.connection;
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
  async add<Q extends QueueName>(name: Q, data: JobInput<Q>, jobId: string, options: JobsOptions = {}): Promise<string> {
    const payload = JOB_SCHEMAS[name].parse(data);
    const stamped = options.delay && options.timestamp === undefined ? { timestamp: await redisNowMs(this.connection) } : {};
    const job = await this.queues[name].add(name, payload, { ...options, ...stamped, jobId });
    return job.id ?? jobId;
  }

  async close(): Promise<void> {
    await Promise.all(Object.values(this.queues).map((q) => q.close()));
  }
}
