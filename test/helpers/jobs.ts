import type { Queue } from "bullmq";

/** Polls until the job has finished (completed or failed, with no retry left); returns its final state. */
export async function waitForJob(queue: Queue, id: string, timeoutMs = 15_000): Promise<{ state: string; returnvalue: unknown; failedReason: string | undefined }> {
  const started = Date.now();
  for (;;) {
    const job = await queue.getJob(id);
    if (job) {
      const state = await job.getState();
      if (state === "completed" || state === "failed") {
        // The job may have finished between getJob and getState: read its final fields afresh.
        const done = (await queue.getJob(id)) ?? job;
        return { state, returnvalue: done.returnvalue, failedReason: done.failedReason };
      }
    }
    if (Date.now() - started > timeoutMs) throw new Error(`job ${id} did not finish within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
