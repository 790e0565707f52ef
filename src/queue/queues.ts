import { Queue, type Job, type JobsOptions, type JobState } from "bullmq";
import type { Redis } from "ioredis";
import { QUEUE_NAMES, type QueueName } from "./names.js";
import { JOB_SCHEMAS, type JobInput } from "./schemas.js";
import { redisNowMs } from "../shared/redis-time.js";
import { RedisClock } from "../shared/redis-clock.js";
import { JobSigner, type Issue, type JobBinding, type Principal, type Via } from "./job-provenance.js";
import { principalOf } from "./principal-of.js";
import { intakeStreamKey } from "./intake-keys.js";
import { hostQueueName, hostsKey, isHostQueue, routeThread, threadsOf, type HostQueue } from "./host-routes.js";

/**
 * Every job says how its principal was established; `principal` only when it is not the payload's requester.
 * `issuedAt`: the Redis time the request was made, when earlier than the add (an intake entry's), so the
 * same entry signs the same job however often it is pumped.
 * `threadFrom` (agent jobs): Redis keys that may name the job's thread — the first that holds one replaces
 * the payload's `threadId` (a comment on our PR continues the thread that opened it) — read in the same
 * round trip as the route, before the job is signed.
 */
export type AddOptions = JobsOptions & { via: Via; principal?: Principal; threadFrom?: readonly string[]; issuedAt?: number };

/** What the webhook handlers need of a queue: `QueueSet` adds at once, `IntakeStream` through the intake pump. */
export type Enqueue = Pick<QueueSet, "add">;

export interface PreparedJob {
  queue: Queue;
  name: string;
  data: object;
  opts: JobsOptions & { jobId: string };
}

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
  readonly names = QUEUE_NAMES;
  /** Redis's time, as jobs are signed and verified by it (issue time, expiry). */
  readonly clock: RedisClock;

  constructor(private readonly opts: QueueSetOptions) {
    this.connection = opts.connection;
    this.signer = opts.signer;
    this.clock = new RedisClock(opts.connection);
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

  private readonly hostQueues = new Map<string, Queue>();

  /** `<queue>@<host>`: the jobs of threads whose local sandbox lives on that host (host-routes.ts). */
  hostQueue(name: HostQueue, hostId: string): Queue {
    const full = hostQueueName(name, hostId);
    let q = this.hostQueues.get(full);
    if (!q) {
      q = new Queue(full, { connection: this.opts.connection, prefix: this.opts.prefix, defaultJobOptions: this.queues[name].defaultJobOptions });
      q.on("error", (err) => this.opts.onError?.(err, name));
      this.hostQueues.set(full, q);
    }
    return q;
  }

  /**
   * A redelivered webhook maps onto an existing job id, which BullMQ keeps as the one job. A delayed job
   * is stamped with Redis's time, so it is due `delay` after now by the clock every process shares, not
   * by this host's (BullMQ would use `Date.now()`).
   */
  async add<Q extends QueueName>(name: Q, data: JobInput<Q>, jobId: string, options: AddOptions): Promise<string> {
    let first: string | undefined;
    for (const part of await this.prepare(name, data, jobId, options)) {
      const job = await part.queue.add(part.name, part.data, part.opts);
      first ??= job.id ?? part.opts.jobId;
    }
    return first ?? jobId;
  }

  /** The jobs `add` would add, routed and signed, for a caller that adds many at once (the intake pump's `addBulk`). */
  async prepare<Q extends QueueName>(name: Q, data: JobInput<Q>, jobId: string, options: AddOptions): Promise<PreparedJob[]> {
    const { via, principal, threadFrom, issuedAt, ...jobOptions } = options;
    const stamped = jobOptions.delay && jobOptions.timestamp === undefined ? { timestamp: await redisNowMs(this.connection) } : {};
    const issue = { iat: issuedAt ?? (await this.clock.now()), ...(jobOptions.delay ? { delayMs: jobOptions.delay } : {}) };
    return (await this.placements(name, data, jobId, threadFrom ?? [])).map((part) => ({
      queue: part.queue,
      name,
      data: this.signed(name, { jobId: part.jobId }, part.data, via, principal, issue),
      opts: { ...jobOptions, ...stamped, jobId: part.jobId },
    }));
  }

  /**
   * Where a job goes: a thread's job to its sandbox's live host, else the shared queue. A teardown of
   * threads on several hosts is split, one job per host (the first keeps `jobId`, the others `<jobId>@<host>`), so each host destroys its own.
   */
  private async placements<Q extends QueueName>(name: Q, data: JobInput<Q>, jobId: string, threadFrom: readonly string[]): Promise<{ queue: Queue; data: JobInput<Q>; jobId: string }[]> {
    const shared = [{ queue: this.queues[name], data, jobId }];
    if (!isHostQueue(name)) return shared;
    const threads = threadsOf(name, data as object);
    if (name === "agent" && threads.length === 1) {
      const route = await routeThread(this.connection, this.opts.prefix, threads[0]!, threadFrom);
      const routed = { ...data, threadId: route.threadId };
      return [{ queue: route.host === null ? this.queues[name] : this.hostQueue(name, route.host), data: routed, jobId }];
    }
    const byHost = new Map<string | null, string[]>();
    for (const threadId of threads) {
      const { host } = await routeThread(this.connection, this.opts.prefix, threadId);
      byHost.set(host, [...(byHost.get(host) ?? []), threadId]);
    }
    if (byHost.size === 0 || (byHost.size === 1 && byHost.has(null))) return shared;
    // The first part keeps the delivery's id (a redelivery dedupes on it); the others are named after their host.
    return [...byHost].map(([host, ids], i) => ({
      queue: host === null ? this.queues[name] : this.hostQueue(name, host),
      data: { ...data, threadIds: ids },
      jobId: i === 0 ? jobId : `${jobId}@${host ?? "shared"}`,
    }));
  }

  /**
   * A job of a dead host's queue, into the shared one under the same id, as it was signed (its signature
   * names the base queue, not the host's, so it still verifies; a forged one is refused there as anywhere).
   */
  async moveToShared(name: HostQueue, job: Job): Promise<void> {
    await this.queues[name].add(job.name, job.data, { jobId: job.id!, ...(job.opts.attempts !== undefined ? { attempts: job.opts.attempts } : {}) });
  }

  /**
   * A failed job the operator retries is issued again: when its signature holds (a forged job is left
   * as it is, and refused again), it is re-signed, same principal, via and payload, with a fresh issue time. Without
   * this the retry would be refused as a replay (the job ran to its end) or as too old.
   */
  async reissue(name: QueueName, job: Job): Promise<boolean> {
    const issue = JobSigner.issueOf(job.data as object);
    const verified = issue ? this.signer.verify(name, job.id ?? "", job.data, issue.iat) : null;
    // Not ours (added by hand, altered): left as it is, and the worker refuses it again.
    if (!verified?.ok) return false;
    await job.updateData(this.signer.sign(name, { jobId: job.id ?? "" }, verified.payload, verified.provenance.via, verified.provenance.principal, { iat: await this.clock.now() }));
    return true;
  }

  /** The queue and, for a host-routed one, every registered host's queue of it (`agent`, `agent@<host>`, …). */
  async allQueues(name: QueueName): Promise<Queue[]> {
    if (!isHostQueue(name)) return [this.queues[name]];
    return [this.queues[name], ...(await this.connection.smembers(hostsKey(this.opts.prefix))).map((host) => this.hostQueue(name, host))];
  }

  /** A job wherever it was routed: the shared queue first, then every registered host's. */
  async findJob(name: QueueName, jobId: string): Promise<Job | undefined> {
    const shared = await this.queues[name].getJob(jobId);
    if (shared || !isHostQueue(name)) return shared;
    for (const host of await this.connection.smembers(hostsKey(this.opts.prefix))) {
      const job = await this.hostQueue(name, host).getJob(jobId);
      if (job) return job;
    }
    return undefined;
  }

  /** A queue's job counts by state, its host queues' included (a job routed to `agent@<host>` is still an agent job). */
  async jobCounts(name: QueueName, states: readonly JobState[]): Promise<Record<string, number>> {
    const queues = [this.queues[name]];
    if (isHostQueue(name)) for (const host of await this.connection.smembers(hostsKey(this.opts.prefix))) queues.push(this.hostQueue(name, host));
    const total: Record<string, number> = Object.fromEntries(states.map((s) => [s, 0]));
    // Webhooks the intake pump has not moved yet are waiting too (an entry being moved may count twice, briefly).
    const [intake, ...all] = await Promise.all([states.includes("waiting") ? this.connection.xlen(intakeStreamKey(this.opts.prefix, name)) : 0, ...queues.map((q) => q.getJobCounts(...states))]);
    for (const counts of all as Record<string, number>[]) {
      for (const [state, n] of Object.entries(counts)) total[state] = (total[state] ?? 0) + n;
    }
    if (intake) total.waiting = (total.waiting ?? 0) + (intake as number);
    return total;
  }

  /** BullMQ's state of a job wherever it was routed ("unknown" when no queue has it). */
  async jobState(name: QueueName, jobId: string): Promise<JobState | "unknown"> {
    const job = await this.findJob(name, jobId);
    return job ? await job.getState() : "unknown";
  }

  /**
   * A repeating job (BullMQ's job scheduler): its template is signed like any job, as the system. With
   * `host`, in that host's own queue (each host sweeps its own disk on its own schedule).
   */
  async schedule<Q extends QueueName>(
    name: Q,
    schedulerId: string,
    repeat: { every?: number; pattern?: string },
    job: { name: string; data: JobInput<Q>; opts?: JobsOptions },
    via: Via,
    host?: string,
  ): Promise<void> {
    const queue = host !== undefined && isHostQueue(name) ? this.hostQueue(name, host) : this.queues[name];
    const data = this.signed(name, { scheduler: schedulerId }, job.data, via, undefined, { iat: await this.clock.now() });
    await queue.upsertJobScheduler(schedulerId, repeat, { name: job.name, data, ...(job.opts ? { opts: job.opts } : {}) });
  }

  /** The one place a job's data is built: zod-checked payload + its signed provenance, bound to its id. */
  private signed<Q extends QueueName>(name: Q, bind: JobBinding, data: JobInput<Q>, via: Via, principal: Principal | undefined, issue: Issue): object {
    const payload = JOB_SCHEMAS[name].parse(data) as object;
    return this.signer.sign(name, bind, payload, via, principal !== undefined ? principal : principalOf(name, payload), issue);
  }

  async close(): Promise<void> {
    await Promise.all([...Object.values(this.queues), ...this.hostQueues.values()].map((q) => q.close()));
  }
}
