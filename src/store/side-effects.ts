import type { Redis } from "ioredis";
import { keyer } from "./keys.js";

/**
 * Remembers the result of a side effect (a comment, a PR) by a key built from the run and what it did,
 * so a run resumed after a crash returns the recorded result instead of doing it twice.
 */
export class SideEffectLedger {
  private readonly key: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlSeconds = 14 * 86400,
    private readonly fence: () => Promise<void> = async () => undefined,
  ) {
    this.key = keyer(`${prefix}:effects`);
  }

  /**
   * The same ledger for one execution of a job: `fence` runs before every effect it has not recorded
   * (and before every claim), so an execution that lost its job's lock does nothing more.
   */
  withFence(fence: () => Promise<void>): SideEffectLedger {
    return new SideEffectLedger(this.redis, this.prefix, this.ttlSeconds, fence);
  }

  async get<T>(key: string): Promise<T | null> {
    const raw = await this.redis.get(this.key(key));
    return raw === null ? null : (JSON.parse(raw) as T);
  }

  async set<T>(key: string, value: T): Promise<void> {
    await this.redis.set(this.key(key), JSON.stringify(value), "EX", this.ttlSeconds);
  }

  /**
   * At most once: true for the first caller of `key`, false for every later one (any process). For
   * effects where a lost one is better than a repeated one (a reaction), claimed before it is done.
   */
  async claim(key: string): Promise<boolean> {
    await this.fence();
    return (await this.redis.set(this.key(key), "1", "EX", this.ttlSeconds, "NX")) === "OK";
  }

  async once<T>(key: string, effect: () => Promise<T>): Promise<{ value: T; replayed: boolean }> {
    const previous = await this.get<T>(key);
    if (previous !== null) return { value: previous, replayed: true };
    await this.fence();
    const value = await effect();
    await this.redis.set(this.key(key), JSON.stringify(value), "EX", this.ttlSeconds);
    return { value, replayed: false };
  }
}
