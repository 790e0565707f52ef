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

/** Stored beside the payload in the job's data under `provenance`; `sig` is the HMAC of `canonical(...)`. */
export const Provenance = z.object({ v: z.literal(1), via: Via, principal: Principal, sig: z.string().regex(/^[0-9a-f]{64}$/) });
export type Provenance = z.infer<typeof Provenance>;
export type VerifiedProvenance = Omit<Provenance, "sig" | "v">;

const PROVENANCE_KEY = "provenance";

export class ProvenanceError extends OpenSweError<"provenance_invalid" | "provenance_key_missing"> {}

/** The message a worker fails an unsigned or altered job with. */
export const NO_PROVENANCE = "job has no valid provenance signature: added outside the web tier?";

/**
 * The one string a job's signature covers: queue, via, principal and the whole zod-parsed payload (its
 * repository, thread, requester and the fields that decide rights, such as `verdictAuthorized`).
 */
function canonical(queue: QueueName, via: Via, principal: Principal, payloadJson: string): string {
  return `v1\n${queue}\n${via}\n${principal?.login ?? ""}\n${principal?.id ?? ""}\n${payloadJson}`;
}

const derive = (ikm: Buffer): Buffer => Buffer.from(hkdfSync("sha256", ikm, "open-swe", "job-provenance v1", 32));

/**
 * Signs what the web tier (and the worker, for the jobs a job queues) enqueues and checks it before a
 * processor runs. The key is derived (HKDF-SHA256) from a secret only web and worker hold:
 * `OPEN_SWE_SECRET_KEY` when set (its `_PREVIOUS` still verifies), else `WEBHOOK_SECRET`.
 */
export class JobSigner {
  private readonly keys: Buffer[];

  /** With no secret it still reads (`runs ls` on a laptop): signing says what to set, verifying refuses every job. */
  constructor(secrets: readonly Buffer[]) {
    this.keys = secrets.map(derive);
  }

  static fromEnv(env: { OPEN_SWE_SECRET_KEY?: string | undefined; OPEN_SWE_SECRET_KEY_PREVIOUS?: string | undefined; WEBHOOK_SECRET?: string | undefined }): JobSigner {
    if (env.OPEN_SWE_SECRET_KEY) return new JobSigner([env.OPEN_SWE_SECRET_KEY, ...(env.OPEN_SWE_SECRET_KEY_PREVIOUS ? [env.OPEN_SWE_SECRET_KEY_PREVIOUS] : [])].map((h) => Buffer.from(h, "hex")));
    return new JobSigner(env.WEBHOOK_SECRET ? [Buffer.from(env.WEBHOOK_SECRET, "utf8")] : []);
  }

  private mac(key: Buffer, text: string): Buffer {
    return createHmac("sha256", key).update(text).digest();
  }

  /** The job's data as stored: the payload with its signed provenance. */
  sign<T extends object>(queue: QueueName, payload: T, via: Via, principal: Principal): T & { provenance: Provenance } {
    const key = this.keys[0];
    if (!key) throw new ProvenanceError("provenance_key_missing", "no key to sign jobs with: set OPEN_SWE_SECRET_KEY or WEBHOOK_SECRET");
    const sig = this.mac(key, canonical(queue, via, principal, JSON.stringify(payload))).toString("hex");
    return { ...payload, [PROVENANCE_KEY]: { v: 1, via, principal, sig } } as T & { provenance: Provenance };
  }

  /**
   * A webhook's intake entry (src/queue/intake-stream.ts) is sealed by the web tier and checked by the
   * pump before it becomes a job: its own domain, so neither MAC can pass for the other.
   */
  sealEntry(text: string): string {
    const key = this.keys[0];
    if (!key) throw new ProvenanceError("provenance_key_missing", "no key to sign jobs with: set OPEN_SWE_SECRET_KEY or WEBHOOK_SECRET");
    return this.mac(key, `intake-entry v1\n${text}`).toString("hex");
  }

  entryHolds(text: string, seal: string): boolean {
    if (!/^[0-9a-f]{64}$/.test(seal)) return false;
    const sig = Buffer.from(seal, "hex");
    return this.keys.some((k) => timingSafeEqual(this.mac(k, `intake-entry v1\n${text}`), sig));
  }

  /** The payload without its provenance, when the signature holds; otherwise why not. */
  verify(queue: QueueName, data: unknown): { ok: true; payload: Record<string, unknown>; provenance: VerifiedProvenance } | { ok: false; reason: string } {
    if (typeof data !== "object" || data === null || Array.isArray(data)) return { ok: false, reason: "not an object" };
    const { [PROVENANCE_KEY]: raw, ...payload } = data as Record<string, unknown>;
    if (raw === undefined) return { ok: false, reason: "unsigned" };
    const p = Provenance.safeParse(raw);
    if (!p.success) return { ok: false, reason: "malformed provenance" };
    const text = canonical(queue, p.data.via, p.data.principal, JSON.stringify(payload));
    const sig = Buffer.from(p.data.sig, "hex");
    if (!this.keys.some((k) => timingSafeEqual(this.mac(k, text), sig))) return { ok: false, reason: "signature mismatch" };
    return { ok: true, payload, provenance: { via: p.data.via, principal: p.data.principal } };
  }
}
