import type { Redis } from "ioredis";
import { redisNowMs } from "./redis-time.js";

/**
 * Redis's time (`TIME`) without a round trip per read: this host's clock plus the offset measured at the
 * last `TIME`, measured again every `refreshMs`. For what needs the shared clock to within seconds (a job's
 * issue time and expiry), many times a second (every job signed and verified).
 */
export class RedisClock {
  private offset = 0;
  private measuredAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly redis: Redis,
    private readonly refreshMs = 30_000,
  ) {}

  async now(): Promise<number> {
    if (Date.now() - this.measuredAt > this.refreshMs) {
      const redisNow = await redisNowMs(this.redis);
      this.measuredAt = Date.now();
      this.offset = redisNow - this.measuredAt;
    }
    return Date.now() + this.offset;
  }
}
