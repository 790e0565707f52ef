import type { Redis } from "ioredis";
import { keyer } from "../store/keys.js";
import type { SourceName } from "./source.js";

/** Sources redeliver for minutes (Slack retries for about an hour); a day covers every documented schedule. */
export const DEDUPE_TTL_SECONDS = 86_400;

/**
 * One claim per event: the first delivery of `dedupeKey` wins (SET NX, atomic in Redis), so concurrent
 * redeliveries queue exactly one job. A delivery that then fails to queue gives the claim back.
 */
export class SourceDedupe {
  private readonly key: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly ttlSeconds = DEDUPE_TTL_SECONDS,
  ) {
    this.key = keyer(`${prefix}:source-dedupe`);
  }

  async claim(source: SourceName, dedupeKey: string): Promise<boolean> {
    return (await this.redis.set(this.key(source, dedupeKey), "1", "EX", this.ttlSeconds, "NX")) === "OK";
  }

  async release(source: SourceName, dedupeKey: string): Promise<void> {
    await this.redis.del(this.key(source, dedupeKey));
  }
}
