import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { LOCK_LOST_REASON, LockLostError } from "../shared/lock-lost.js";
import { leaseLapsed } from "./lease-lapsed.js";

/** One execution of a job: the job id with the BullMQ token it was fetched with (a retry or a stall re-fetch has another). */
export interface Execution {
  queue: string;
  jobId: string;
  token: string;
  /** Aborted with `LOCK_LOST_REASON` as soon as the lock may be gone; combined with BullMQ's signal. */
  signal: AbortSignal;
  /** Resolves only while the lock is this execution's (asks Redis); otherwise aborts and throws `LockLostError`. */
  fence(): Promise<void>;
  /** Whether the lock was lost (the run must not act, nor write the run's shared records, any more). */
  lost(): boolean;
  end(): void;
}

export interface JobLockWatchOptions {
  redis: Redis;
  prefix: string;
  lockDurationMs: number;
  log: Logger;
  /** BullMQ's `Worker.extendJobLocks` of the queue: the ids whose token no longer holds the lock. */
  extend(queue: string, jobIds: string[], tokens: string[], durationMs: number): Promise<string[]>;
  now?: () => number;
}

interface Tracked {
  queue: string;
  jobId: string;
  token: string;
  controller: AbortController;
  confirmedSentAt: number;
}

/**
 * Keeps every running execution's job lock and stops an execution the moment it may have lost it:
 * renewal refused (the lock lapsed or another token holds it), or no renewal confirmed for a whole lock
 * duration (Redis frozen or unreachable: by then another worker may have taken the job as stalled).
 * BullMQ tracks locks by job id, so a job re-fetched by the same worker replaces the first execution's
 * entry; this watch tracks each execution by its own token and renews its lock itself.
 */
export class JobLockWatch {
  private readonly live = new Set<Tracked>();
  private timer: NodeJS.Timeout | null = null;
  private readonly now: () => number;

  constructor(private readonly opts: JobLockWatchOptions) {
    this.now = opts.now ?? Date.now;
  }

  start(jobSignal: AbortSignal | undefined, queue: string, jobId: string, token: string): Execution {
    const controller = new AbortController();
    const t: Tracked = { queue, jobId, token, controller, confirmedSentAt: this.now() };
    this.live.add(t);
    this.schedule();
    const signal = jobSignal ? AbortSignal.any([jobSignal, controller.signal]) : controller.signal;
    return {
      queue,
      jobId,
      token,
      signal,
      lost: () => controller.signal.aborted,
      fence: () => this.fence(t),
      end: () => {
        this.live.delete(t);
        if (this.live.size === 0 && this.timer) {
          clearInterval(this.timer);
          this.timer = null;
        }
      },
    };
  }

  /** BullMQ's `lockRenewalFailed` / `stalled` events: re-check those jobs' executions now. */
  async recheck(jobIds: readonly string[]): Promise<void> {
    await Promise.all([...this.live].filter((t) => jobIds.includes(t.jobId)).map((t) => this.renew(t)));
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), Math.max(100, Math.floor(this.opts.lockDurationMs / 4)));
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    for (const t of this.live) {
      if (leaseLapsed(t.confirmedSentAt, this.now(), this.opts.lockDurationMs)) this.lose(t, "no lock renewal confirmed for a whole lock duration");
    }
    await Promise.all([...this.live].map((t) => this.renew(t)));
  }

  private async renew(t: Tracked): Promise<void> {
    if (t.controller.signal.aborted) return;
    const sentAt = this.now();
    let failed: string[];
    try {
      failed = await this.opts.extend(t.queue, [t.jobId], [t.token], this.opts.lockDurationMs);
    } catch {
      return; // Redis unreachable: the lease decides (tick).
    }
    if (failed.includes(t.jobId)) this.lose(t, "lock renewal refused: the lock lapsed or another execution holds it");
    else if (!t.controller.signal.aborted) t.confirmedSentAt = Math.max(t.confirmedSentAt, sentAt);
  }

  private lose(t: Tracked, why: string): void {
    if (t.controller.signal.aborted) return;
    this.opts.log.warn({ queue: t.queue, jobId: t.jobId, why }, "job lock lost: this execution stops acting (the job resumes where its lock went)");
    t.controller.abort(LOCK_LOST_REASON);
  }

  private async fence(t: Tracked): Promise<void> {
    const lost = () => new LockLostError(t.jobId);
    if (t.controller.signal.aborted) throw lost();
    if (leaseLapsed(t.confirmedSentAt, this.now(), this.opts.lockDurationMs)) {
      this.lose(t, "no lock renewal confirmed for a whole lock duration");
      throw lost();
    }
    // A frozen Redis answers late: the lease may lapse while we wait, and then the answer is moot.
    let onAbort = () => undefined as void;
    const aborted = new Promise<null>((resolve) => t.controller.signal.addEventListener("abort", (onAbort = () => resolve(null)), { once: true }));
    const holder = await Promise.race([this.opts.redis.get(`${this.opts.prefix}:${t.queue}:${t.jobId}:lock`), aborted]).finally(() => t.controller.signal.removeEventListener("abort", onAbort));
    if (t.controller.signal.aborted) throw lost();
    if (holder !== t.token) {
      this.lose(t, "the lock is gone or held by another token");
      throw lost();
    }
  }
}
