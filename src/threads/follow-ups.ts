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
local n = redis.call("rpush", KEYS[1], ARGV[1])
local cap = tonumber(ARGV[2])
local dropped = 0
if n > cap then
  dropped = n - cap
  redis.call("ltrim", KEYS[1], dropped, -1)
  redis.call("hincrby", KEYS[2], "dropped", dropped)
end
redis.call("expire", KEYS[1], ARGV[3])
redis.call("expire", KEYS[2], ARGV[3])
return {math.min(n, cap), dropped}
`;

const DRAIN = `
local items = redis.call("lrange", KEYS[1], 0, -1)
redis.call("del", KEYS[1])
local dropped = redis.call("hget", KEYS[2], "dropped") or "0"
redis.call("del", KEYS[2])
return {items, dropped}
`;

// The drain runs before every model call of every run: by SHA, not the text each time.
const push = luaScript(PUSH);
const drain = luaScript(DRAIN);

/**
 * Messages that arrive while a thread's run is active. Capped: past the cap the oldest are dropped and
 * counted, so the agent learns that it missed some rather than the list growing without bound.
 */
export class FollowUpQueue {
  private readonly key: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly cap: number,
    private readonly ttlSeconds = 7 * 86400,
  ) {
    this.key = keyer(`${prefix}:followups`);
  }

  async push(threadId: string, item: FollowUp): Promise<{ length: number; dropped: number }> {
    const [length, dropped] = (await push(this.redis, 2, this.key(threadId), this.key(threadId, "meta"), JSON.stringify(FollowUp.parse(item)), String(this.cap), String(this.ttlSeconds))) as [
      number,
      number,
    ];
    return { length, dropped };
  }

  async drain(threadId: string): Promise<{ items: FollowUp[]; dropped: number }> {
    const [raw, dropped] = (await drain(this.redis, 2, this.key(threadId), this.key(threadId, "meta"))) as [string[], string];
    return { items: raw.map((r) => FollowUp.parse(JSON.parse(r))), dropped: Number(dropped) };
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
