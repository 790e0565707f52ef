import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { jobId } from "../queue/job-ids.js";
import { CiEventJob } from "../queue/schemas.js";
import { keyer } from "../store/keys.js";
import type { JobContext } from "../threads/job-context.js";

const TTL_SECONDS = 7 * 86400;

/**
 * Red CI on a thread whose run is still going: the event is kept (one per fingerprint) and decided
 * afresh when the run ends, as a fix run of its own — never handed to a run that is not a CI fix.
 */
export class BatchedEvents {
  private readonly key: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = keyer(`${prefix}:autofix`);
  }

  async store(threadId: string, fingerprint: string, event: CiEventJob): Promise<void> {
    await this.redis.multi().hset(this.key("batched", threadId), fingerprint, JSON.stringify(event)).expire(this.key("batched", threadId), TTL_SECONDS).exec();
  }

  /** Everything stored for the thread, removed in the same step (two callers never both get one). */
  async take(threadId: string): Promise<{ fingerprint: string; event: CiEventJob }[]> {
    const res = await this.redis.multi().hgetall(this.key("batched", threadId)).del(this.key("batched", threadId)).exec();
    const all = (res?.[0]?.[1] ?? {}) as Record<string, string>;
    return Object.entries(all).flatMap(([fingerprint, raw]) => {
      const parsed = CiEventJob.safeParse(JSON.parse(raw));
      return parsed.success ? [{ fingerprint, event: parsed.data }] : [];
    });
  }
}

/** The thread's run ended: each stored event becomes a `ci-event` job again, through the whole decision. */
export async function replayBatched(ctx: Pick<JobContext, "redis" | "prefix" | "queues" | "log">, threadId: string): Promise<number> {
  const taken = await new BatchedEvents(ctx.redis, ctx.prefix).take(threadId);
  for (const { fingerprint, event } of taken) {
    const id = jobId("autofix-replay", threadId, createHash("sha256").update(fingerprint).digest("hex").slice(0, 16), Date.now());
    await ctx.queues.add("ci-event", { ...event, deliveryId: id }, id, { via: "system:autofix-replay" });
  }
  if (taken.length > 0) ctx.log.info({ threadId, replayed: taken.length }, "CI autofix: batched events replayed after the run");
  return taken.length;
}
