import { randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Tokens this setup process handed to a browser (the manifest flow's `state`, the import form's CSRF
 * token), each also set as a cookie: a request is trusted only with a token we issued that matches its
 * cookie. Kept in memory (setup is one process), at most `cap` of them, each for `ttlMs`.
 */
export class SetupTokens {
  private readonly issued = new Map<string, number>();

  constructor(
    private readonly ttlMs = 60 * 60 * 1000,
    private readonly cap = 64,
    private readonly now = () => Date.now(),
  ) {}

  issue(): string {
    const token = randomBytes(24).toString("base64url");
    this.issued.set(token, this.now() + this.ttlMs);
    while (this.issued.size > this.cap) this.issued.delete(this.issued.keys().next().value!);
    return token;
  }

  /** The given token is one we issued, unexpired, and the same as the browser's cookie. */
  matches(given: string | null | undefined, cookie: string | undefined): boolean {
    if (!given || !cookie) return false;
    const a = Buffer.from(given);
    const b = Buffer.from(cookie);
    if (a.length !== b.length || !timingSafeEqual(a, b)) return false;
    const expires = this.issued.get(given);
    if (expires === undefined) return false;
    if (expires < this.now()) {
      this.issued.delete(given);
      return false;
    }
    return true;
  }

  /** Used once: a manifest `state` cannot convert a second code. */
  consume(token: string): void {
    this.issued.delete(token);
  }
}
