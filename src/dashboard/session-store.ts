import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { z } from "zod";
import { keyer } from "../store/keys.js";

export const Session = z.object({
  login: z.string().min(1),
  userId: z.number().int(),
  admin: z.boolean(),
  /** Lower-case `owner/name` of the installed repos this user can push to, checked at sign-in. */
  repos: z.array(z.string()),
  /** Which installation each of those repos belongs to. */
  installations: z.record(z.string(), z.number().int()),
  csrf: z.string().min(32),
  createdAt: z.number().int(),
});
export type Session = z.infer<typeof Session>;

export const PendingLogin = z.object({ verifier: z.string().min(43), next: z.string() });
export type PendingLogin = z.infer<typeof PendingLogin>;

const PENDING_SECONDS = 600;

/** Dashboard sessions and half-finished sign-ins, in Redis with an expiry; ids are 256 random bits. */
export class SessionStore {
  private readonly key: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = keyer(`${prefix}:dashboard`);
  }

  async create(s: Omit<Session, "csrf" | "createdAt">, now = Date.now()): Promise<{ id: string; session: Session }> {
    const id = randomBytes(32).toString("base64url");
    const session = Session.parse({ ...s, csrf: randomBytes(32).toString("base64url"), createdAt: now });
    await this.redis.set(this.key("session", id), JSON.stringify(session), "EX", this.ttlSeconds);
    return { id, session };
  }

  async get(id: string): Promise<Session | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
    const raw = await this.redis.get(this.key("session", id));
    if (!raw) return null;
    const parsed = Session.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  }

  async destroy(id: string): Promise<void> {
    await this.redis.del(this.key("session", id));
  }

  async savePending(state: string, p: PendingLogin): Promise<void> {
    await this.redis.set(this.key("pending", state), JSON.stringify(PendingLogin.parse(p)), "EX", PENDING_SECONDS);
  }

  /** The sign-in this `state` started, once: a replayed callback finds nothing. */
  async takePending(state: string): Promise<PendingLogin | null> {
    if (!/^[A-Za-z0-9_-]{16,64}$/.test(state)) return null;
    const raw = await this.redis.getdel(this.key("pending", state));
    return raw ? PendingLogin.parse(JSON.parse(raw)) : null;
  }
}
