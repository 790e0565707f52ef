import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { OpenSweError } from "../errors.js";
import type { QueueName } from "./names.js";

/** How a job's principal was established: a verified webhook of a source, a dashboard session, the operator CLI. */
export const PERSON_VIAS = ["github-webhook", "slack", "linear", "jira", "confluence", "dashboard", "operator"] as const;
/** Jobs the app queues on its own schedule or timer: they act as nobody but the recorded requester of what they continue. */
export const SYSTEM_VIAS = [
  "system:ci-monitor",
  "system:reconcile",
  "system:approval-timeout",
  "system:sandbox-sweep",
  "system:nightly-analyze",
  "system:autofix-replay",
  "system:installation-sync",
] as const;
export const Via = z.enum([...PERSON_VIAS, ...SYSTEM_VIAS]);
export type Via = z.infer<typeof Via>;

/** Who asked: a GitHub login (and its numeric id when known); null for system jobs and unmapped source events. */
export const Principal = z.object({ login: z.string().min(1), id: z.number().int().optional() }).nullable();
export type Principal = z.infer<typeof Principal>;

/**
 * Stored beside the payload in the job's data under `provenance`; `sig` is the HMAC of `canonical(...)`,
 * which also covers the job's id (or, for a job scheduler's template, the scheduler whose `repeat:<id>:<ms>`
 * jobs it makes), when it was issued (`iat`, Redis time, ms) and until when it may run (`exp`; none for a
 * scheduler's template, which is signed as the system once and runs at every iteration).
 */
export const Provenance = z.object({
  v: z.literal(2),
  via: Via,
  principal: Principal,
  iat: z.number().int(),
  exp: z.number().int().nullable(),
  scheduler: z.string().min(1).optional(),
  sig: z.string().regex(/^[0-9a-f]{64}$/),
});
export type Provenance = z.infer<typeof Provenance>;
export type VerifiedProvenance = Pick<Provenance, "via" | "principal">;

/** What a signature is bound to: the one job id it may run under, or a job scheduler's iterations. */
export type JobBinding = { jobId: string } | { scheduler: string };

/** When a job is issued: Redis's time at signing (or its intake entry's), and its delay if any. */
export interface Issue {
  iat: number;
  delayMs?: number;
}

/** Why a job is refused: its provenance (unsigned, forged, altered, bound elsewhere), or `expired` past its age. */
export type Refusal = { ok: false; reason: string; expired?: true };

const PROVENANCE_KEY = "provenance";
const DEFAULT_MAX_AGE_MS = 24 * 3600_000;
const SYSTEM = new Set<string>(SYSTEM_VIAS);

/** The domains of the Redis entries the signer's key seals, one per kind (never a job's `v1\n…`). */
export type SealDomain = "intake-entry v1" | "follow-up v1" | "run-registry v1" | "bot-account v1" | "pr-thread-requester v1";

export class ProvenanceError extends OpenSweError<"provenance_invalid" | "provenance_key_missing"> {}

/** The message a worker fails an unsigned or altered job with. */
export const NO_PROVENANCE = "job has no valid provenance signature: added outside the web tier?";
/** The message a worker fails a job past its maximum age with. */
export const JOB_EXPIRED = "job refused: too old to run (past JOB_MAX_AGE_HOURS after it was due)";

/**
 * The one string a job's signature covers: the base queue (`agent`, never `agent@<host>`: our router
 * moves a job between them), the job id or scheduler it is bound to, its issue time and expiry, via,
 * principal and the whole zod-parsed payload (its repository, thread, requester and the fields that
 * decide rights, such as `verdictAuthorized`).
 */
function canonical(queue: QueueName, bind: string, iat: number, exp: number | null, via: Via, principal: Principal, payloadJson: string): string {
  return `v2\n${queue}\n${bind}\n${iat}\n${exp ?? ""}\n${via}\n${principal?.login ?? ""}\n${principal?.id ?? ""}\n${payloadJson}`;
}

const bindingOf = (b: JobBinding): string => ("jobId" in b ? `id:${b.jobId}` : `scheduler:${b.scheduler}`);

const derive = (ikm: Buffer): Buffer => Buffer.from(hkdfSync("sha256", ikm, "open-swe", "job-provenance v1", 32));

/**
 * Signs what the web tier (and the worker, for the jobs a job queues) enqueues and checks it before a
 * processor runs. The key is derived (HKDF-SHA256) from a secret only web and worker hold:
 * `OPEN_SWE_SECRET_KEY` when set (its `_PREVIOUS` still verifies), else `WEBHOOK_SECRET`.
 */
export class JobSigner {
  private readonly keys: Buffer[];

  /**
   * With no secret it still reads (`runs ls` on a laptop): signing says what to set, verifying refuses every job.
   * `maxAgeMs`: how long after it is due (issued + delay) a job may still start (`JOB_MAX_AGE_HOURS`).
   */
  constructor(
    secrets: readonly Buffer[],
    readonly maxAgeMs = DEFAULT_MAX_AGE_MS,
  ) {
    this.keys = secrets.map(derive);
  }

  static fromEnv(env: {
    OPEN_SWE_SECRET_KEY?: string | undefined;
    OPEN_SWE_SECRET_KEY_PREVIOUS?: string | undefined;
    WEBHOOK_SECRET?: string | undefined;
    JOB_MAX_AGE_HOURS?: number | undefined;
  }): JobSigner {
    const maxAge = env.JOB_MAX_AGE_HOURS !== undefined ? env.JOB_MAX_AGE_HOURS * 3600_000 : DEFAULT_MAX_AGE_MS;
    if (env.OPEN_SWE_SECRET_KEY)
      return new JobSigner(
        [env.OPEN_SWE_SECRET_KEY, ...(env.OPEN_SWE_SECRET_KEY_PREVIOUS ? [env.OPEN_SWE_SECRET_KEY_PREVIOUS] : [])].map((h) => Buffer.from(h, "hex")),
        maxAge,
      );
    return new JobSigner(env.WEBHOOK_SECRET ? [Buffer.from(env.WEBHOOK_SECRET, "utf8")] : [], maxAge);
  }

  private mac(key: Buffer, text: string): Buffer {
    return createHmac("sha256", key).update(text).digest();
  }

  /**
   * The job's data as stored: the payload with its signed provenance, bound to `bind` (its job id, or a
   * scheduler's iterations: system jobs only, no expiry) and issued at `issue.iat`.
   */
  sign<T extends object>(queue: QueueName, bind: JobBinding, payload: T, via: Via, principal: Principal, issue: Issue): T & { provenance: Provenance } {
    const key = this.keys[0];
    if (!key) throw new ProvenanceError("provenance_key_missing", "no key to sign jobs with: set OPEN_SWE_SECRET_KEY or WEBHOOK_SECRET");
    const scheduler = "scheduler" in bind ? bind.scheduler : undefined;
    if (scheduler !== undefined && (!SYSTEM.has(via) || principal !== null)) throw new ProvenanceError("provenance_invalid", "only a system job with no principal is signed for a scheduler");
    const exp = scheduler !== undefined ? null : issue.iat + (issue.delayMs ?? 0) + this.maxAgeMs;
    const sig = this.mac(key, canonical(queue, bindingOf(bind), issue.iat, exp, via, principal, JSON.stringify(payload))).toString("hex");
    const provenance: Provenance = { v: 2, via, principal, iat: issue.iat, exp, ...(scheduler !== undefined ? { scheduler } : {}), sig };
    return { ...payload, [PROVENANCE_KEY]: provenance } as T & { provenance: Provenance };
  }

  /**
   * A webhook's intake entry (src/queue/intake-stream.ts) is sealed by the web tier and checked by the
   * pump before it becomes a job: its own domain, so neither MAC can pass for the other.
   */
  sealEntry(text: string): string {
    return this.seal("intake-entry v1", text);
  }

  entryHolds(text: string, seal: string): boolean {
    return this.holds("intake-entry v1", text, seal);
  }

  /**
   * A Redis entry the web tier or the worker wrote and later acts on (a follow-up, a registered run):
   * MAC'd under its own domain, so no entry, intake seal or job signature passes for another.
   */
  seal(domain: SealDomain, text: string): string {
    const key = this.keys[0];
    if (!key) throw new ProvenanceError("provenance_key_missing", "no key to sign jobs with: set OPEN_SWE_SECRET_KEY or WEBHOOK_SECRET");
    return this.mac(key, `${domain}\n${text}`).toString("hex");
  }

  holds(domain: SealDomain, text: string, seal: string): boolean {
    if (!/^[0-9a-f]{64}$/.test(seal)) return false;
    const sig = Buffer.from(seal, "hex");
    return this.keys.some((k) => timingSafeEqual(this.mac(k, `${domain}\n${text}`), sig));
  }

  /**
   * Pure: the payload without its provenance, when the signature holds for this job id and the job is not
   * past its expiry at `nowMs` (Redis time); otherwise why not. A retry or a stalled job's recovery is the
   * same id and the same signature: it verifies as the first execution did (until its expiry).
   */
  verify(queue: QueueName, jobId: string, data: unknown, nowMs: number): { ok: true; payload: Record<string, unknown>; provenance: VerifiedProvenance } | Refusal {
    const refuse = (reason: string): Refusal => ({ ok: false, reason });
    if (typeof data !== "object" || data === null || Array.isArray(data)) return refuse("not an object");
    const { [PROVENANCE_KEY]: raw, ...payload } = data as Record<string, unknown>;
    if (raw === undefined) return refuse("unsigned");
    if (typeof raw === "object" && raw !== null && (raw as { v?: unknown }).v === 1) return refuse("signed by a version before job ids and expiry (v1): ask again");
    const p = Provenance.safeParse(raw);
    if (!p.success) return refuse("malformed provenance");
    const { scheduler, iat, exp, via, principal } = p.data;
    if (scheduler !== undefined && !jobId.startsWith(`repeat:${scheduler}:`)) return refuse(`signed for scheduler ${scheduler}'s jobs, found as ${jobId}`);
    if (scheduler === undefined && exp === null) return refuse("no expiry");
    const bind = scheduler !== undefined ? { scheduler } : { jobId };
    const text = canonical(queue, bindingOf(bind), iat, exp, via, principal, JSON.stringify(payload));
    const sig = Buffer.from(p.data.sig, "hex");
    // A signature holds for one job id: a copy under another id (or in another queue) is a mismatch here.
    if (!this.keys.some((k) => timingSafeEqual(this.mac(k, text), sig))) return refuse("signature mismatch");
    if (exp !== null && nowMs > exp) return { ok: false, expired: true, reason: `issued ${new Date(iat).toISOString()}, expired ${new Date(exp).toISOString()}` };
    return { ok: true, payload, provenance: { via, principal } };
  }

  /** Pure: a job's signature, issue time and expiry as it claims them (null if it has none) (what its one-shot record is kept under, and how long). */
  static issueOf(data: object): { sig: string; iat: number; exp: number | null } | null {
    const p = Provenance.safeParse((data as { [PROVENANCE_KEY]?: unknown })[PROVENANCE_KEY]);
    return p.success ? { sig: p.data.sig, iat: p.data.iat, exp: p.data.exp } : null;
  }
}
