import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { ZodError } from "zod";
import { INTAKE_GROUP, intakeStreamKey } from "./intake-keys.js";
import { openEntry } from "./intake-stream.js";
import { QUEUE_NAMES, type QueueName } from "./names.js";
import type { PreparedJob, QueueSet } from "./queues.js";

type Entry = [id: string, fields: string[] | null];

export interface IntakePumpOptions {
  /** A connection of the pump's own: it blocks in XREADGROUP. The pump closes it. */
  connection: Redis;
  queues: QueueSet;
  prefix: string;
  log: Logger;
  /** An entry another pump read and left unacknowledged this long is taken over (XAUTOCLAIM). */
  claimIdleMs?: number;
  batch?: number;
  /** Test seam: runs after a batch's jobs are added, before its entries are acknowledged. */
  afterAdd?: (entryIds: readonly string[]) => Promise<void>;
}

/**
 * Moves the webhooks the web tier appended (src/queue/intake-stream.ts) into BullMQ: reads each queue's
 * stream in the `pumps` consumer group, checks every entry's seal (a hand-added or altered entry is
 * refused with one log line and dropped), routes and signs its jobs (`QueueSet.prepare`, the same code
 * as a direct add), adds them with one `addBulk` per queue and only then acknowledges and deletes the
 * entries. A pump that dies in between leaves them pending; after `claimIdleMs` another pump (or this one)
 * claims them and adds them again under the same job ids — except a job that is already in any of its
 * queue's queues: routed again now, it could land in another one (the thread gained a host meanwhile),
 * where BullMQ would not know its id.
 */
export class IntakePump {
  private stopped = false;
  private readonly stopping = new AbortController();
  private running: Promise<void> | null = null;
  private readonly keys: string[];
  private readonly queueOf: Map<string, QueueName>;
  readonly consumer = `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
  private readonly claimIdleMs: number;
  private readonly batch: number;

  constructor(private readonly opts: IntakePumpOptions) {
    this.claimIdleMs = opts.claimIdleMs ?? 30_000;
    this.batch = opts.batch ?? 200;
    this.keys = QUEUE_NAMES.map((q) => intakeStreamKey(opts.prefix, q));
    this.queueOf = new Map(QUEUE_NAMES.map((q) => [intakeStreamKey(opts.prefix, q), q]));
  }

  start(): void {
    this.running ??= this.loop();
  }

  private async ensureGroups(): Promise<void> {
    for (const key of this.keys) {
      await this.opts.connection.xgroup("CREATE", key, INTAKE_GROUP, "0", "MKSTREAM").catch((err: unknown) => {
        if (!String(err).includes("BUSYGROUP")) throw err;
      });
    }
  }

  private async loop(): Promise<void> {
    const conn = this.opts.connection;
    let nextClaim = 0;
    let lastError = 0;
    while (!this.stopped) {
      try {
        if (nextClaim === 0) await this.ensureGroups();
        if (Date.now() >= nextClaim) {
          for (const key of this.keys) await this.claimStale(key);
          nextClaim = Date.now() + Math.max(200, this.claimIdleMs / 2);
        }
        const block = Math.min(1_000, Math.max(50, nextClaim - Date.now()));
        const read = (await conn.xreadgroup("GROUP", INTAKE_GROUP, this.consumer, "COUNT", this.batch, "BLOCK", block, "STREAMS", ...this.keys, ...this.keys.map(() => ">"))) as
          | [string, Entry[]][]
          | null;
        for (const [key, entries] of read ?? []) await this.move(key, entries);
      } catch (err) {
        if (this.stopped) break;
        // A stream deleted under us (NOGROUP) is made again on the next turn; anything else waits a second.
        if (String(err).includes("NOGROUP")) nextClaim = 0;
        else {
          if (Date.now() - lastError > 30_000) this.opts.log.error({ err: String(err) }, "intake pump: could not move webhooks into the queues (retrying)");
          lastError = Date.now();
          await sleep(1_000, undefined, { signal: this.stopping.signal }).catch(() => undefined);
        }
      }
    }
  }

  /** Entries a dead pump read and never acknowledged. */
  private async claimStale(key: string): Promise<void> {
    let cursor = "0-0";
    do {
      const [next, entries, deleted] = (await this.opts.connection.xautoclaim(key, INTAKE_GROUP, this.consumer, this.claimIdleMs, cursor, "COUNT", this.batch)) as [string, Entry[], string[]?];
      if (entries.length > 0) this.opts.log.info({ stream: key, entries: entries.length }, "intake pump: took over entries another pump left unacknowledged");
      await this.move(key, [...entries, ...(deleted ?? []).map((id): Entry => [id, null])], true);
      cursor = next;
    } while (cursor !== "0-0" && !this.stopped);
  }

  /** `retaken`: entries another pump read before (it may have added their jobs already). */
  private async move(key: string, entries: Entry[], retaken = false): Promise<void> {
    if (entries.length === 0) return;
    const queue = this.queueOf.get(key) as QueueName;
    const prepared = (await Promise.all(entries.map(([id, fields]) => (fields ? this.prepare(key, queue, id, fields) : [])))).flat();
    const added = retaken ? await Promise.all(prepared.map((job) => this.opts.queues.findJob(queue, job.opts.jobId))) : [];
    const byQueue = new Map<Queue, PreparedJob[]>();
    for (const [i, job] of prepared.entries()) {
      if (added[i]) {
        this.opts.log.info({ stream: key, jobId: job.opts.jobId, queue: added[i].queueName }, "intake pump: a taken-over entry's job was already added, not added again");
        continue;
      }
      byQueue.set(job.queue, [...(byQueue.get(job.queue) ?? []), job]);
    }
    await Promise.all([...byQueue].map(([q, jobs]) => q.addBulk(jobs.map(({ name, data, opts }) => ({ name, data, opts })))));
    const ids = entries.map(([id]) => id);
    await this.opts.afterAdd?.(ids);
    await this.opts.connection
      .multi()
      .xack(key, INTAKE_GROUP, ...ids)
      .xdel(key, ...ids)
      .exec();
  }

  /** An entry's jobs, or none when it is refused (said once, in one line). */
  private async prepare(key: string, queue: QueueName, id: string, fields: string[]): Promise<PreparedJob[]> {
    const opened = openEntry(this.opts.queues.signer, queue, fields);
    const refuse = (reason: string) => {
      this.opts.log.warn({ stream: key, entryId: id, reason }, `intake entry refused, no job made: ${reason}`);
      return [];
    };
    if (!opened.ok) return refuse(opened.reason);
    const { entry } = opened;
    try {
      return await this.opts.queues.prepare(entry.queue, entry.data as never, entry.jobId, {
        via: entry.via,
        ...(entry.principal !== undefined ? { principal: entry.principal } : {}),
        ...(entry.threadFrom ? { threadFrom: entry.threadFrom } : {}),
        issuedAt: entry.at,
      });
    } catch (err) {
      if (err instanceof ZodError) return refuse(`payload does not fit the ${queue} job: ${err.issues[0]?.path.join(".")}`);
      throw err;
    }
  }

  /** Stops reading; a batch being moved finishes unacknowledged at worst (another pump claims it). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    this.opts.connection.disconnect();
    await this.running?.catch(() => undefined);
  }
}
