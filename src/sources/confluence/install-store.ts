import type { Redis } from "ioredis";
import { keyer } from "../../store/keys.js";
import type { SecretBox } from "../../store/secret-box.js";
import { JWT_LEEWAY_SECONDS } from "./connect-jwt.js";

export interface ConnectInstall {
  clientKey: string;
  /** The site's Confluence base URL (`https://acme.atlassian.net/wiki`): where API calls go. */
  baseUrl: string;
  sharedSecret: string;
}

/** One Redis hash per Connect install; the shared secret sealed (AES-256-GCM), bound to its client key. */
export class ConnectInstalls {
  private readonly k: (...parts: string[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly box: SecretBox,
  ) {
    this.k = keyer(`${prefix}:confluence:install`);
  }

  private static aad(clientKey: string) {
    return `confluence-install:${clientKey}`;
  }

  /** `issuedAt`: the signed `iat` of the install callback; a later callback may not be older. */
  async save(install: ConnectInstall, issuedAt?: number): Promise<void> {
    await this.redis.hset(this.k(install.clientKey), {
      baseUrl: install.baseUrl,
      secret: this.box.seal(install.sharedSecret, ConnectInstalls.aad(install.clientKey)),
      savedAt: new Date().toISOString(),
      ...(issuedAt !== undefined ? { iat: String(issuedAt) } : {}),
    });
  }

  /**
   * When the recorded install was signed (epoch seconds): its callback's `iat`, or for an install saved
   * before that was kept, the time we saved it less the clock leeway. Null: not installed.
   */
  async installedAt(clientKey: string): Promise<number | null> {
    const [iat, savedAt] = await this.redis.hmget(this.k(clientKey), "iat", "savedAt");
    if (iat && Number.isFinite(Number(iat))) return Number(iat);
    const saved = savedAt ? Date.parse(savedAt) : Number.NaN;
    return Number.isFinite(saved) ? Math.floor(saved / 1000) - JWT_LEEWAY_SECONDS : null;
  }

  async get(clientKey: string): Promise<ConnectInstall | null> {
    const h = await this.redis.hgetall(this.k(clientKey));
    if (!h.baseUrl || !h.secret) return null;
    const aad = ConnectInstalls.aad(clientKey);
    const sharedSecret = this.box.open(h.secret, aad);
    // Sealed with the key being retired: seal it again with the current one.
    if (this.box.needsReseal(h.secret, aad)) await this.redis.hset(this.k(clientKey), "secret", this.box.seal(sharedSecret, aad));
    return { clientKey, baseUrl: h.baseUrl, sharedSecret };
  }

  async remove(clientKey: string): Promise<boolean> {
    return (await this.redis.del(this.k(clientKey))) > 0;
  }
}
