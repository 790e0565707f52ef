import type { Redis } from "ioredis";
import { keyer } from "../store/keys.js";

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;
const EXTEND = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;

/** One run per thread across every worker: a Redis lock owned by a token, with a TTL so a crash frees it. */
export class RunLocks {
  private readonly key: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly ttlMs: number,
  ) {
    this.key = keyer(`${prefix}:runlock`);
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

  async release(threadId: string, owner: string): Promise<boolean> {
    return (await this.redis.eval(RELEASE, 1, this.key(threadId), owner)) === 1;
  }
}
