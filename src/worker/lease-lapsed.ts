/**
 * Whether a job lock may have lapsed: the last renewal Redis confirmed was sent `lockDurationMs` ago or
 * more (the lock was set to expire `lockDurationMs` after that renewal reached Redis, which was no earlier
 * than it was sent). A worker past this point may no longer hold the job and must stop acting on it. Pure.
 */
export function leaseLapsed(confirmedSentAt: number, now: number, lockDurationMs: number): boolean {
  return now - confirmedSentAt >= lockDurationMs;
}
