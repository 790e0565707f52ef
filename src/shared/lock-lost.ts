import { OpenSweError } from "../errors.js";

/** The abort reason a job sees when its worker no longer holds the job's BullMQ lock. */
export const LOCK_LOST_REASON = "job lock lost";

/** Thrown by a job's fence (and by a run that notices) once its worker no longer holds the job's lock. */
export class LockLostError extends OpenSweError<"lock_lost"> {
  constructor(jobId: string) {
    super("lock_lost", `the job lock of ${jobId} is no longer this worker's: another execution may run it`);
  }
}
