import type { Redis } from "ioredis";
import { AgentJob } from "../queue/schemas.js";
import { keyer } from "../store/keys.js";

/** A run that held its thread's lock, with what it needs to answer where it was asked (its text left out). */
export interface RegisteredRun {
  jobId: string;
  job: AgentJob;
  at: number;
}

/**
 * The runs that took a thread's lock and have not reached their own end: what the hourly `reconcile`
 * sweep checks against the locks and BullMQ, so a run whose worker vanished is ended with a reply.
 */
export class RunRegistry {
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = keyer(`${prefix}:runs`)("active");
  }

  async register(jobId: string, job: AgentJob, now = Date.now()): Promise<void> {
    await this.redis.hset(this.key, jobId, JSON.stringify({ job: { ...job, text: "" }, at: now }));
  }

  async unregister(jobId: string): Promise<void> {
    await this.redis.hdel(this.key, jobId);
  }

  /** At most `limit` entries; an unreadable one is dropped. */
  async list(limit = 1_000): Promise<RegisteredRun[]> {
    const out: RegisteredRun[] = [];
    let cursor = "0";
    do {
      const [next, flat] = await this.redis.hscan(this.key, cursor, "COUNT", 200);
      cursor = next;
      for (let i = 0; i + 1 < flat.length && out.length < limit; i += 2) {
        const raw = JSON.parse(flat[i + 1]!) as { job?: unknown; at?: unknown };
        const job = AgentJob.safeParse(raw.job);
        if (job.success && typeof raw.at === "number") out.push({ jobId: flat[i]!, job: job.data, at: raw.at });
        else await this.unregister(flat[i]!);
      }
    } while (cursor !== "0" && out.length < limit);
    return out;
  }
}
