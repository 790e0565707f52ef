import type { Redis } from "ioredis";
import { keyer } from "../store/keys.js";
import type { AutofixDecision } from "./decide.js";

const TTL_SECONDS = 90 * 86400;
const KEEP_DECISIONS = 50;

/**
 * Claims one fix run atomically: the fingerprint must be new, the PR under its cap and (for CI) the head
 * not yet tried. Two events for the same red head arriving together dispatch once.
 * KEYS: handled set, attempts hash. ARGV: fingerprint, head field, max, ci (1/0), count (1 = dispatch, 0 = batch), ttl.
 */
const CLAIM = `
if redis.call("sismember", KEYS[1], ARGV[1]) == 1 then return "already_handled" end
local total = tonumber(redis.call("hget", KEYS[2], "total") or "0")
local onHead = tonumber(redis.call("hget", KEYS[2], ARGV[2]) or "0")
if ARGV[5] == "1" and (total >= tonumber(ARGV[3]) or (ARGV[4] == "1" and onHead >= 1)) then return "max_attempts" end
redis.call("sadd", KEYS[1], ARGV[1])
if ARGV[5] == "1" then
  redis.call("hincrby", KEYS[2], "total", 1)
  redis.call("hincrby", KEYS[2], ARGV[2], 1)
end
redis.call("expire", KEYS[1], ARGV[6])
redis.call("expire", KEYS[2], ARGV[6])
return "ok"
`;

/** KEYS: reruns hash. ARGV: head field, max, ttl. The n-th re-run of this head, or nil past the max. */
const CLAIM_RERUN = `
local n = redis.call("hincrby", KEYS[1], ARGV[1], 1)
if n > tonumber(ARGV[2]) then redis.call("hincrby", KEYS[1], ARGV[1], -1) return false end
redis.call("expire", KEYS[1], ARGV[3])
return n
`;

/** KEYS: handled set, attempts hash. ARGV: head sha, head field. Gives back the head's CI attempt and its fingerprints. */
const REFUND_HEAD = `
local removed = 0
for _, f in ipairs(redis.call("smembers", KEYS[1])) do
  if string.sub(f, 1, string.len(ARGV[1]) + 1) == ARGV[1] .. ":" then redis.call("srem", KEYS[1], f) removed = removed + 1 end
end
local onHead = tonumber(redis.call("hget", KEYS[2], ARGV[2]) or "0")
if onHead > 0 then
  redis.call("hincrby", KEYS[2], ARGV[2], -1)
  if tonumber(redis.call("hget", KEYS[2], "total") or "0") > 0 then redis.call("hincrby", KEYS[2], "total", -1) end
end
return removed
`;

export interface AutofixRecord extends AutofixDecision {
  at: number;
  trigger: string;
  fingerprint: string;
  headSha: string;
  attempt: number;
}

/** Per PR: fix attempts (total and per head), fingerprints already dispatched, and the recent decisions. */
export class AutofixLedger {
  private readonly key: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = keyer(`${prefix}:autofix`);
  }

  async attempts(pr: string, headSha: string): Promise<{ total: number; onHead: number }> {
    const [total, onHead] = await this.redis.hmget(this.key("attempts", pr), "total", `head:${headSha}`);
    return { total: Number(total ?? 0), onHead: Number(onHead ?? 0) };
  }

  async handled(pr: string): Promise<string[]> {
    return this.redis.smembers(this.key("handled", pr));
  }

  /** `counts`: a dispatched run spends an attempt; a batched follow-up does not. */
  async claim(pr: string, c: { fingerprint: string; headSha: string; maxAttempts: number; ci: boolean; counts: boolean }): Promise<"ok" | "already_handled" | "max_attempts"> {
    return (await this.redis.eval(
      CLAIM,
      2,
      this.key("handled", pr),
      this.key("attempts", pr),
      c.fingerprint,
      `head:${c.headSha}`,
      String(c.maxAttempts),
      c.ci ? "1" : "0",
      c.counts ? "1" : "0",
      String(TTL_SECONDS),
    )) as "ok" | "already_handled" | "max_attempts";
  }

  /** The n-th re-run of a flaky head's failed jobs (1-based), or null once `max` were spent. */
  async claimRerun(pr: string, headSha: string, max: number): Promise<number | null> {
    const n = (await this.redis.eval(CLAIM_RERUN, 1, this.key("reruns", pr), `head:${headSha}`, String(max), String(TTL_SECONDS))) as number | null;
    return n === null ? null : Number(n);
  }

  async unclaimRerun(pr: string, headSha: string): Promise<void> {
    await this.redis.hincrby(this.key("reruns", pr), `head:${headSha}`, -1);
  }

  async reruns(pr: string, headSha: string): Promise<number> {
    return Number((await this.redis.hget(this.key("reruns", pr), `head:${headSha}`)) ?? 0);
  }

  /** A re-run is no fix attempt: the head's attempt and its handled fingerprints are given back. */
  async refundHead(pr: string, headSha: string): Promise<void> {
    await this.redis.eval(REFUND_HEAD, 2, this.key("handled", pr), this.key("attempts", pr), headSha, `head:${headSha}`);
  }

  async record(pr: string, rec: AutofixRecord): Promise<void> {
    await this.redis
      .multi()
      .lpush(this.key("decisions", pr), JSON.stringify(rec))
      .ltrim(this.key("decisions", pr), 0, KEEP_DECISIONS - 1)
      .expire(this.key("decisions", pr), TTL_SECONDS)
      .exec();
  }

  async decisions(pr: string): Promise<AutofixRecord[]> {
    return (await this.redis.lrange(this.key("decisions", pr), 0, -1)).map((s) => JSON.parse(s) as AutofixRecord);
  }

  /** True the first time a notice is due (a check per head and reason, the cap's comment per PR). */
  async once(pr: string, tag: string): Promise<boolean> {
    return (await this.redis.set(this.key("notice", pr, tag), "1", "EX", TTL_SECONDS, "NX")) === "OK";
  }

  /** First time a head was seen with checks still running: the settle clock for `checks_pending`. */
  async firstPendingAt(pr: string, headSha: string, now: number): Promise<number> {
    const k = this.key("pending-since", pr, headSha);
    await this.redis.set(k, String(now), "EX", 86400, "NX");
    return Number((await this.redis.get(k)) ?? now);
  }
}
