import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { JobSigner } from "../queue/job-provenance.js";
import { AgentJob } from "../queue/schemas.js";
import { keyer } from "../store/keys.js";

/** A run that held its thread's lock, with what it needs to answer where it was asked (its text left out). */
export interface RegisteredRun {
  jobId: string;
  job: AgentJob;
  at: number;
}

const SEAL_HEX = 64;
/** What an entry's seal covers: its job id (the field) and its exact JSON. */
const sealed = (jobId: string, json: string): string => `${jobId}\n${json}`;

/**
 * The runs that took a thread's lock and have not reached their own end: what the hourly `reconcile`
 * sweep checks against the locks and BullMQ, so a run whose worker vanished is ended with a reply.
 *
 * An entry is the verified job of a run (its repository, thread, requester), which reconcile answers and
 * continues: the worker stores it MAC'd (`JobSigner.seal`, domain `run-registry v1`, bound to its job
 * id). An entry whose MAC does not hold (an HSET by hand, an edit) is removed with one warning line.
 */
export class RunRegistry {
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly signer: JobSigner,
    private readonly log?: Pick<Logger, "warn">,
  ) {
    this.key = keyer(`${prefix}:runs`)("active");
  }

  async register(jobId: string, job: AgentJob, now = Date.now()): Promise<void> {
    const json = JSON.stringify({ job: { ...job, text: "" }, at: now });
    await this.redis.hset(this.key, jobId, this.signer.seal("run-registry v1", sealed(jobId, json)) + json);
  }

  async unregister(jobId: string): Promise<void> {
    await this.redis.hdel(this.key, jobId);
  }

  /** The entry when its seal holds and it reads as a run; otherwise null. */
  private open(jobId: string, raw: string): RegisteredRun | null {
    const json = raw.slice(SEAL_HEX);
    if (!this.signer.holds("run-registry v1", sealed(jobId, json), raw.slice(0, SEAL_HEX))) return null;
    const entry = JSON.parse(json) as { job?: unknown; at?: unknown };
    const job = AgentJob.safeParse(entry.job);
    return job.success && typeof entry.at === "number" ? { jobId, job: job.data, at: entry.at } : null;
  }

  /** At most `limit` entries; an unreadable or forged one is dropped. */
  async list(limit = 1_000): Promise<RegisteredRun[]> {
    const out: RegisteredRun[] = [];
    let cursor = "0";
    do {
      const [next, flat] = await this.redis.hscan(this.key, cursor, "COUNT", 200);
      cursor = next;
      for (let i = 0; i + 1 < flat.length && out.length < limit; i += 2) {
        const run = this.open(flat[i]!, flat[i + 1]!);
        if (run) out.push(run);
        else {
          this.log?.warn({ jobId: flat[i] }, "run registry entry dropped: its seal does not hold (written outside the worker, or altered)");
          await this.unregister(flat[i]!);
        }
      }
    } while (cursor !== "0" && out.length < limit);
    return out;
  }
}
