import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { JWT_LEEWAY_SECONDS } from "./connect-jwt.js";

/**
 * Connect tokens already accepted, by hash, until they expire: a token signs the method and URL but not
 * the body, so a captured one (install or webhook, ~3 minutes of life) could carry any body — it is
 * accepted once (SET NX), and a second use is refused.
 */
export class ConnectTokenReplay {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** True the first time `token` is seen; false (refuse it) after that, until `exp` and the leeway are past. */
  async firstUse(token: string, exp: number, receivedAt: Date): Promise<boolean> {
    const hash = createHash("sha256").update(token).digest("hex");
    const ttlMs = Math.max(1_000, (exp + JWT_LEEWAY_SECONDS) * 1000 - receivedAt.getTime() + 1_000);
    return (await this.redis.set(`${this.prefix}:confluence:jwt-seen:${hash}`, "1", "PX", ttlMs, "NX")) === "OK";
  }
}
