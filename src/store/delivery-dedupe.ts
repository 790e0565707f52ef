import type { Redis } from "ioredis";
import { luaScript } from "../shared/lua-script.js";
import { keyer } from "./keys.js";

/** GitHub's Redeliver button works for 3 days; a week also covers a captured body replayed later. */
const DELIVERY_DEDUPE_SECONDS = 7 * 86_400;

/** What a claim found: nothing (the delivery is new and now claimed), or which key it was seen under. */
export type DeliveryClaim = "new" | "delivery" | "body";

// KEYS: the delivery id's key, the body's key. ARGV: the TTL in seconds.
const CLAIM = `if redis.call('EXISTS', KEYS[1]) == 1 then return 'delivery' end
if redis.call('EXISTS', KEYS[2]) == 1 then return 'body' end
redis.call('SET', KEYS[1], '1', 'EX', ARGV[1])
redis.call('SET', KEYS[2], '1', 'EX', ARGV[1])
return 'new'`;
const claim = luaScript(CLAIM);

/**
 * "A delivery is one job", whatever queue its job would be routed to: a signed GitHub delivery is claimed
 * once by its delivery id *and* by its body's signature (GitHub does not sign the delivery id, so a
 * captured body re-posted under a new one is the same delivery), in one script, before any job is made.
 */
export class DeliveryDedupe {
  private readonly key: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly ttlSeconds = DELIVERY_DEDUPE_SECONDS,
  ) {
    this.key = keyer(`${prefix}:delivery`);
  }

  /** `bodyHash`: a hash of the signed body (the verified HMAC). */
  async claim(deliveryId: string, bodyHash: string): Promise<DeliveryClaim> {
    return (await claim(this.redis, 2, this.key("id", deliveryId), this.key("body", bodyHash), String(this.ttlSeconds))) as DeliveryClaim;
  }

  /** A delivery that was not accepted (its handler failed): GitHub's retry or redelivery must go through. */
  async release(deliveryId: string, bodyHash: string): Promise<void> {
    await this.redis.del(this.key("id", deliveryId), this.key("body", bodyHash));
  }
}
