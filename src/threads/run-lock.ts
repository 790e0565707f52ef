import type { Redis } from "ioredis";
import { runLockKey } from "../store/keys.js";

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;
// Taken from `from`, or free: `from` may release it between the caller's read of the holder and this call.
const TAKE_OVER = `local v = redis.call("get", KEYS[1]) if v == ARGV[1] or not v then redis.call("set", KEYS[1], ARGV[2], "PX", ARGV[3]) return 1 else return 0 end`;
// The holder is `<jobId>#<token>` (run-owner.ts), or the bare id written before tokens were part of it.
const RELEASE_JOB = `local v = redis.call("get", KEYS[1]) if v == ARGV[1] or (v and string.sub(v, 1, #ARGV[1] + 1) == ARGV[1] .. "#") then return redis.call("del", KEYS[1]) else return 0 end`;
const EXTEND = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;

/** One run per thread across every worker: a Redis lock owned by a token, with a TTL so a crash frees it. */
export class RunLocks {
  private readonly key: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly ttlMs: number,
  ) {
    this.key = (threadId) => runLockKey(prefix, String(threadId));
  }

  async acquire(threadId: string, owner: string): Promise<boolean> {
    return (await this.redis.set(this.key(threadId), owner, "PX", this.ttlMs, "NX")) === "OK";
  }

  async holder(threadId: string): Promise<string | null> {
    return this.redis.get(this.key(threadId));
  }

  async extend(threadId: string, owner: string): Promise<boolean> {
    return (await this.redis.eval(EXTEND, 1, this.key(threadId), owner, String(this.ttlMs))) === 1;
  }

  /**
   * Moves the lock from a dead owner to a new one if `from` still holds it or nobody does (`from` let go
   * meanwhile: a stale execution whose partition healed releases as it stops); never from another holder.
   */
  async takeOver(threadId: string, from: string, to: string): Promise<boolean> {
    return (await this.redis.eval(TAKE_OVER, 1, this.key(threadId), from, to, String(this.ttlMs))) === 1;
  }

  async release(threadId: string, owner: string): Promise<boolean> {
    return (await this.redis.eval(RELEASE, 1, this.key(threadId), owner)) === 1;
  }

  /** Releases the lock if any execution of `jobId` holds it (a job BullMQ gave up on never released it). */
  async releaseJob(threadId: string, jobId: string): Promise<boolean> {
    return (await this.redis.eval(RELEASE_JOB, 1, this.key(threadId), jobId)) === 1;
  }
}
