/**
 * Who holds a thread's run lock: one execution of a job — its id and the BullMQ token it was fetched
 * with. A stalled job re-fetched (a Redis outage, a frozen worker) has the same id and another token: a
 * different holder, never let in just because the id matches.
 */
export function runOwner(jobId: string, token: string): string {
  return `${jobId}#${token}`;
}

/** The job id of a run lock's holder (a holder written before tokens were part of it is the bare id). */
export function ownerJobId(holder: string): string {
  const at = holder.lastIndexOf("#");
  return at === -1 ? holder : holder.slice(0, at);
}
