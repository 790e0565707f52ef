import type { Redis } from "ioredis";

/** Redis's own time (`TIME`): the one clock every process shares. */
export async function redisNowMs(redis: Redis): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}
