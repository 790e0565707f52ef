import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { AppConfig } from "../config/env.js";
import type { GitHubAuth } from "../shared/github-auth.js";
import type { VerifiedProvenance } from "../queue/job-provenance.js";
import type { QueueSet } from "../queue/queues.js";
import type { SettingsStore } from "../store/settings-store.js";
import type { PrThreads } from "../store/pr-threads.js";
import type { FollowUpQueue } from "./follow-ups.js";
import type { RunLocks } from "./run-lock.js";

/**
 * What every processor gets besides its payload: shared services, built once per worker process. The worker's
 * own context (`src/worker/job-context.ts`) adds the source clients and the agent runtime for the rooms above.
 */
export interface JobServices {
  config: AppConfig;
  redis: Redis;
  prefix: string;
  github: GitHubAuth;
  settings: SettingsStore;
  locks: RunLocks;
  followUps: FollowUpQueue;
  prThreads: PrThreads;
  queues: QueueSet;
}

export interface JobContext extends JobServices {
  jobId: string;
  attempt: number;
  /** This execution of the job (id + BullMQ token): the holder a thread's run lock names (`run-owner.ts`). */
  runOwner: string;
  /**
   * Before each outward side effect: resolves while the job's lock is this execution's, otherwise aborts
   * `signal` and throws `LockLostError` (another execution may be running the job).
   */
  fence(): Promise<void>;
  /** The job's lock was lost: nothing more may be done or recorded for the run. */
  lockLost(): boolean;
  log: Logger;
  signal: AbortSignal;
  /** Who this job acts for and how that was established, as signed by whoever queued it (verified). */
  provenance: VerifiedProvenance;
}

/** What a processor returns; stored as the job's return value and logged. */
export interface JobOutcome {
  outcome: string;
  [k: string]: unknown;
}
