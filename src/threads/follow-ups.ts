import type { Redis } from "ioredis";
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

/**
 * Messages that arrive while a thread's run is active. Capped: a message past the cap is not queued
 * (`queued: false`) and the caller tells its sender, so none is lost without anyone knowing.
 */
export class FollowUpQueue {
  private readonly key: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    readonly cap: number,
    private readonly ttlSeconds = 7 * 86400,
  ) {
    this.key = keyer(`${prefix}:followups`);
  }

  async push(threadId: string, item: FollowUp): Promise<{ length: number; queued: boolean }> {
    const [length, queued] = (await push(this.redis, 1, this.key(threadId), JSON.stringify(FollowUp.parse(item)), String(this.cap), String(this.ttlSeconds))) as [number, number];
    return { length, queued: queued === 1 };
  }

  async drain(threadId: string): Promise<FollowUp[]> {
    const raw = (await drain(this.redis, 1, this.key(threadId))) as string[];
    return raw.map((r) => FollowUp.parse(JSON.parse(r)));
  }

  /** The newest pending message, left in place. */
  async newest(threadId: string): Promise<FollowUp | null> {
    const [raw] = await this.redis.lrange(this.key(threadId), -1, -1);
    return raw ? FollowUp.parse(JSON.parse(raw)) : null;
  }

  async length(threadId: string): Promise<number> {
    return this.redis.llen(this.key(threadId));
  }
}

/** Pure: what the sender of a message past the cap is told. */
export function followUpRefusedText(cap: number): string {
  return `This thread's run already has ${cap} messages waiting for it, so I did not take this one. Send it again once the run has finished.`;
}
