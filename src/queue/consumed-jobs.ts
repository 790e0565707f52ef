import type { Redis } from "ioredis";

/** How long a scheduler iteration's record is kept (its signature has no expiry; its id is one iteration's). */
const SCHEDULED_TTL_MS = 7 * 86400_000;
/** Past the expiry, so the record outlives every moment the job could still verify. */
const MARGIN_MS = 3600_000;

/** The start of the failure a replayed job is refused with (the `failed` listener's one line). */
export const JOB_REPLAYED = "job refused: it already ran to its end under this id and signature (a replay: copied back, or re-added after completion)";

/**
 * The signed jobs that ran to their end (completed, or failed for good): a job is one-shot, so the same id
 * with the same signature queued again (moved back from `completed`, deleted and re-added, its intake
 * entry appended again) is refused. Recorded at the end, not at pickup: a retry (attempts, backoff) and a
 * stalled job's recovery run the same id and signature and must run. Each record lives until past the
 * job's expiry, after which the signature no longer verifies anyway.
 */
export class ConsumedJobs {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private keyOf(queue: string, jobId: string, sig: string): string {
    return `${this.prefix}:consumed-jobs:${queue}:${jobId}:${sig.slice(0, 32)}`;
  }

  async consumed(queue: string, jobId: string, sig: string): Promise<boolean> {
    return (await this.redis.exists(this.keyOf(queue, jobId, sig))) === 1;
  }

  /** `exp`: the signature's expiry (Redis ms), null for a scheduler's iteration; `nowMs`: Redis time. */
  async record(queue: string, jobId: string, sig: string, exp: number | null, nowMs: number): Promise<void> {
    const ttl = exp === null ? SCHEDULED_TTL_MS : Math.max(exp - nowMs, 0) + MARGIN_MS;
    await this.redis.set(this.keyOf(queue, jobId, sig), String(nowMs), "PX", ttl);
  }
}
