import type { Redis } from "ioredis";
import { z } from "zod";
import { OpenSweError } from "../errors.js";
import { RedisClock } from "../shared/redis-clock.js";
import { intakeStreamKey } from "./intake-keys.js";
import { Principal, Via, type JobSigner } from "./job-provenance.js";
import { QUEUE_NAMES, type QueueName } from "./names.js";
import type { AddOptions, Enqueue } from "./queues.js";
import { JOB_SCHEMAS, type JobInput } from "./schemas.js";

/** What one stream entry asks for: `QueueSet.add`'s arguments, the payload already zod-checked. */
export const IntakeEntry = z.object({
  queue: z.enum(QUEUE_NAMES),
  data: z.record(z.string(), z.unknown()),
  jobId: z.string().min(1),
  via: Via,
  principal: Principal.optional(),
  threadFrom: z.array(z.string()).optional(),
  /** When the web tier took the webhook (Redis time, ms): the job's issue time, so a re-appended entry signs the same job and ages. */
  at: z.number().int(),
});
export type IntakeEntry = z.infer<typeof IntakeEntry>;

export class IntakeEntryError extends OpenSweError<"intake_entry_refused"> {}

/**
 * The web tier's durable write before the 2xx: one XADD of the webhook's job request, sealed with the job
 * key (`JobSigner.sealEntry`), to its queue's stream. The intake pump (src/queue/intake-pump.ts, in every
 * worker) routes, signs and adds it to BullMQ under the same deterministic job id, so a redelivery is
 * still one job. Costs what a bare XADD costs instead of BullMQ's add script (`npm run bench:intake`).
 */
export class IntakeStream implements Enqueue {
  private readonly clock: RedisClock;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly signer: JobSigner,
  ) {
    this.clock = new RedisClock(redis);
  }

  async add<Q extends QueueName>(name: Q, data: JobInput<Q>, jobId: string, options: AddOptions): Promise<string> {
    const { via, principal, threadFrom, ...rest } = options;
    // Only what a webhook handler passes: a delayed or re-tried job goes to QueueSet.add directly.
    if (Object.keys(rest).length > 0) throw new IntakeEntryError("intake_entry_refused", `the intake stream carries no job options (${Object.keys(rest).join(", ")})`);
    const entry: IntakeEntry = {
      queue: name,
      data: JOB_SCHEMAS[name].parse(data) as Record<string, unknown>,
      jobId,
      via,
      ...(principal !== undefined ? { principal } : {}),
      ...(threadFrom?.length ? { threadFrom: [...threadFrom] } : {}),
      at: await this.clock.now(),
    };
    const text = JSON.stringify(entry);
    await this.redis.xadd(intakeStreamKey(this.prefix, name), "*", "e", text, "s", this.signer.sealEntry(text));
    return jobId;
  }
}

/** A stream entry as the pump reads it: its request when the seal holds and it belongs to this stream, else why not. */
export function openEntry(signer: JobSigner, queue: QueueName, fields: readonly string[]): { ok: true; entry: IntakeEntry } | { ok: false; reason: string } {
  const at = (k: string) => {
    const i = fields.indexOf(k);
    return i >= 0 && i % 2 === 0 ? fields[i + 1] : undefined;
  };
  const text = at("e");
  const seal = at("s");
  if (text === undefined || seal === undefined) return { ok: false, reason: "unsealed (not appended by the web tier)" };
  if (!signer.entryHolds(text, seal)) return { ok: false, reason: "seal mismatch (not appended by the web tier, or altered)" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: "not JSON" };
  }
  const entry = IntakeEntry.safeParse(parsed);
  if (!entry.success) return { ok: false, reason: `malformed: ${entry.error.issues[0]?.path.join(".")}` };
  if (entry.data.queue !== queue) return { ok: false, reason: `sealed for queue ${entry.data.queue}, found in ${queue}'s stream` };
  return { ok: true, entry: entry.data };
}
