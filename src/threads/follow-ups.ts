import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { JobSigner } from "../queue/job-provenance.js";
import { z } from "zod";
import { CommentRef } from "../queue/schemas.js";
import { luaScript } from "../shared/lua-script.js";
import { keyer } from "../store/keys.js";

/** Where a follow-up was asked, so a continuation run answers there. */
export const FollowUpOrigin = z.object({
  number: z.number().int().positive(),
  isPullRequest: z.boolean(),
  requester: z.object({ login: z.string().min(1), id: z.number().int() }),
  comment: CommentRef.optional(),
});
export type FollowUpOrigin = z.infer<typeof FollowUpOrigin>;

export const FollowUp = z.object({
  text: z.string(),
  author: z.string(),
  source: z.string(),
  url: z.string().optional(),
  at: z.number(),
  origin: FollowUpOrigin.optional(),
});
export type FollowUp = z.infer<typeof FollowUp>;

const PUSH = `
local n = redis.call("llen", KEYS[1])
if n >= tonumber(ARGV[2]) then
  return {n, 0}
end
n = redis.call("rpush", KEYS[1], ARGV[1])
redis.call("expire", KEYS[1], ARGV[3])
return {n, 1}
`;

const DRAIN = `
local items = redis.call("lrange", KEYS[1], 0, -1)
redis.call("del", KEYS[1])
return items
`;

// The drain runs before every model call of every run: by SHA, not the text each time.
const push = luaScript(PUSH);
const drain = luaScript(DRAIN);

/** What a follow-up's seal covers: its thread and its exact JSON (moved to another thread, it no longer holds). */
const sealed = (threadId: string, json: string): string => `${threadId}\n${json}`;
const SEAL_HEX = 64;

/**
 * Messages that arrive while a thread's run is active. Capped: a message past the cap is not queued
 * (`queued: false`) and the caller tells its sender, so none is lost without anyone knowing.
 *
 * Each entry names who asked (its author, its origin's requester), whom a continuation runs as: it is
 * stored MAC'd (`JobSigner.seal`, domain `follow-up v1`, bound to its thread) by the web tier or the
 * worker that pushed it, and read back only when the MAC holds. An entry pushed by hand (RPUSH) is
 * dropped with one warning line, never acted on.
 */
export class FollowUpQueue {
  private readonly key: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    readonly cap: number,
    private readonly signer: JobSigner,
    private readonly log?: Pick<Logger, "warn">,
    private readonly ttlSeconds = 7 * 86400,
  ) {
    this.key = keyer(`${prefix}:followups`);
  }

  async push(threadId: string, item: FollowUp): Promise<{ length: number; queued: boolean }> {
    const json = JSON.stringify(FollowUp.parse(item));
    const entry = this.signer.seal("follow-up v1", sealed(threadId, json)) + json;
    const [length, queued] = (await push(this.redis, 1, this.key(threadId), entry, String(this.cap), String(this.ttlSeconds))) as [number, number];
    return { length, queued: queued === 1 };
  }

  /** The entry's message when its seal holds; null (and one warning) when not. */
  private open(threadId: string, raw: string): FollowUp | null {
    const json = raw.slice(SEAL_HEX);
    if (this.signer.holds("follow-up v1", sealed(threadId, json), raw.slice(0, SEAL_HEX))) {
      const item = FollowUp.safeParse(JSON.parse(json));
      if (item.success) return item.data;
    }
    return null;
  }

  private dropped(threadId: string): void {
    this.log?.warn({ threadId }, "follow-up dropped: its seal does not hold (pushed outside the web tier and the worker, or altered)");
  }

  async drain(threadId: string): Promise<FollowUp[]> {
    const raw = (await drain(this.redis, 1, this.key(threadId))) as string[];
    const out: FollowUp[] = [];
    for (const r of raw) {
      const item = this.open(threadId, r);
      if (item) out.push(item);
      else this.dropped(threadId);
    }
    return out;
  }

  /** The newest pending message whose seal holds, left in place; a forged one met on the way is removed. */
  async newest(threadId: string): Promise<FollowUp | null> {
    const raw = await this.redis.lrange(this.key(threadId), 0, -1);
    for (let i = raw.length - 1; i >= 0; i--) {
      const item = this.open(threadId, raw[i]!);
      if (item) return item;
      // Removed by whoever sees it first (a drain or another reader): one warning per entry.
      if ((await this.redis.lrem(this.key(threadId), 1, raw[i]!)) > 0) this.dropped(threadId);
    }
    return null;
  }

  async length(threadId: string): Promise<number> {
    return this.redis.llen(this.key(threadId));
  }
}

/** Pure: what the sender of a message past the cap is told. */
export function followUpRefusedText(cap: number): string {
  return `This thread's run already has ${cap} messages waiting for it, so I did not take this one. Send it again once the run has finished.`;
}
