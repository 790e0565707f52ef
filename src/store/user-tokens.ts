import type { Redis } from "ioredis";
import { z } from "zod";
import { keyer } from "./keys.js";
import type { SecretBox } from "./secret-box.js";

export const StoredUserToken = z.object({
  accessToken: z.string().min(1),
  refreshToken: z.string().min(1).optional(),
  expiresAt: z.number().int().optional(),
  refreshExpiresAt: z.number().int().optional(),
});
export type StoredUserToken = z.infer<typeof StoredUserToken>;

/**
 * A user's GitHub user-to-server tokens ("open PRs as me"), sealed with AES-256-GCM (`SecretBox`) and
 * bound to the login (AAD), so Redis never holds them in clear and one user's blob cannot stand in for another's.
 */
export class UserTokens {
  private readonly key: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly box: SecretBox,
  ) {
    this.key = keyer(`${prefix}:user-tokens`);
  }

  private aad(login: string): string {
    return `user-token:${login.toLowerCase()}`;
  }

  async save(login: string, token: StoredUserToken): Promise<void> {
    await this.redis.hset(this.key(), login.toLowerCase(), this.box.seal(JSON.stringify(StoredUserToken.parse(token)), this.aad(login)));
  }

  /** The token, or null when none is stored or it cannot be opened (key gone, tampered). */
  async get(login: string): Promise<StoredUserToken | null> {
    const sealed = await this.redis.hget(this.key(), login.toLowerCase());
    if (!sealed) return null;
    try {
      const token = StoredUserToken.parse(JSON.parse(this.box.open(sealed, this.aad(login))));
      // Sealed with a key being retired: seal it again under the current one.
      if (this.box.needsReseal(sealed, this.aad(login))) await this.save(login, token);
      return token;
    } catch {
      return null;
    }
  }

  async remove(login: string): Promise<void> {
    await this.redis.hdel(this.key(), login.toLowerCase());
  }
}
