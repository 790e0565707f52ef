import { Queue, type Job, type JobType } from "bullmq";
import type { Redis } from "ioredis";
import { hostQueueName, hostsKey, HOST_QUEUES, type HostQueue } from "../../src/queue/host-routes.js";

const hostQueues = new Map<string, Queue>();

function hostQueue(queue: Queue, host: string, client: Redis, prefix: string): Queue {
  const name = hostQueueName(queue.name as HostQueue, host);
  const key = `${prefix}|${name}`;
  let hq = hostQueues.get(key);
  if (!hq) {
    hq = new Queue(name, { connection: client, prefix });
    hostQueues.set(key, hq);
  }
  return hq;
}

/**
 * The job wherever the app routed it: the given queue, or — for a queue with host queues (`agent`, `cleanup`) —
 * the queue of any registered host (a thread whose local sandbox lives on a host gets its jobs there).
 */
export async function findJob(queue: Queue, id: string): Promise<Job | undefined> {
  const job = await queue.getJob(id);
  if (job || !(HOST_QUEUES as readonly string[]).includes(queue.name)) return job;
  // The app's queues share one ioredis connection (QueueSet); a queue built from plain options has no hosts to look in.
  const client = queue.opts.connection as Partial<Redis>;
  if (typeof client.smembers !== "function") return undefined;
  const prefix = queue.opts.prefix ?? "bull";
  for (const host of await client.smembers(hostsKey(prefix))) {
    const found = await hostQueue(queue, host, client as Redis, prefix).getJob(id);
    if (found) return found;
  }
  return undefined;
}

/** Polls until the job exists (a webhook's job reaches BullMQ through the intake pump, after the 200). */
export async function jobAppears(queue: Queue, id: string, timeoutMs = 15_000): Promise<Job> {
  const started = Date.now();
  for (;;) {
    const job = await findJob(queue, id);
    if (job) return job;
    if (Date.now() - started > timeoutMs) throw new Error(`job ${id} did not appear within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Polls until the job has finished (completed or failed, with no retry left); returns its final state. */
export async function waitForJob(queue: Queue, id: string, timeoutMs = 15_000): Promise<{ state: string; returnvalue: unknown; failedReason: string | undefined }> {
  const started = Date.now();
  for (;;) {
    const job = await findJob(queue, id);
    if (job) {
      const state = await job.getState();
      if (state === "completed" || state === "failed") {
        // The job may have finished between getJob and getState: read its final fields afresh.
        const done = (await findJob(queue, id)) ?? job;
        return { state, returnvalue: done.returnvalue, failedReason: done.failedReason };
      }
    }
    if (Date.now() - started > timeoutMs) throw new Error(`job ${id} did not finish within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Every job of a queue in the given states, the host queues' included (where a thread's jobs go while its host lives). */
export async function jobsEverywhere(queue: Queue, states: JobType[]): Promise<Job[]> {
  const jobs = await queue.getJobs(states);
  if (!(HOST_QUEUES as readonly string[]).includes(queue.name)) return jobs;
  const client = queue.opts.connection as Partial<Redis>;
  if (typeof client.smembers !== "function") return jobs;
  const prefix = queue.opts.prefix ?? "bull";
  for (const host of await client.smembers(hostsKey(prefix))) jobs.push(...(await hostQueue(queue, host, client as Redis, prefix).getJobs(states)));
  return jobs;
}
