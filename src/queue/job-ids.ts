/** BullMQ custom ids may not contain ':' nor be integers; `__` separates parts. */
export function jobId(...parts: (string | number)[]): string {
  return ["j", ...parts.map((p) => String(p).replace(/:/g, "_"))].join("__");
}

export function deliveryJobId(deliveryId: string): string {
  return jobId("gh", deliveryId);
}

/**
 * An automatic review pass: one per head commit *and* reason, so `ready_for_review` on the head a
 * draft's skipped `opened` pass already used is a new job, while a redelivery of either is not.
 */
export function reviewJobId(reviewerThreadId: string, headSha: string, reason: string): string {
  return jobId("review", reviewerThreadId, headSha, reason);
}
