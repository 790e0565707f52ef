import { createHmac } from "node:crypto";
import type { InboundRequest, Verification } from "../source.js";
import { timingSafeStringEqual } from "../atlassian/timing-safe.js";
import { header } from "../header.js";

/** The header an Automation "Send web request" action carries the shared secret in. */
export const JIRA_SECRET_HEADER = "x-open-swe-webhook-secret";
/** A signed body's `timestamp` older than this is a replay (Jira's own retries come within minutes). */
export const JIRA_MAX_AGE_MS = 60 * 60 * 1000;
export const JIRA_MAX_SKEW_MS = 5 * 60 * 1000;

/**
 * A Jira delivery is trusted when it carries the admin webhook's `X-Hub-Signature: sha256=<HMAC of the raw body>`
 * or the shared secret header; a `timestamp` in the body (ms, as Jira sends) must be recent.
 */
export function verifyJiraRequest(req: InboundRequest, secret: string | undefined): Verification {
  if (!secret) return { ok: false, reason: "JIRA_WEBHOOK_SECRET is not set" };
  const signature = header(req.headers, "x-hub-signature");
  const shared = header(req.headers, JIRA_SECRET_HEADER);
  if (signature !== undefined) {
    const m = /^sha256=([0-9a-fA-F]{64})$/.exec(signature.trim());
    if (!m) return { ok: false, reason: "X-Hub-Signature is not sha256=<hex>" };
    const expected = createHmac("sha256", secret).update(req.rawBody).digest("hex");
    if (!timingSafeStringEqual(m[1]!.toLowerCase(), expected)) return { ok: false, reason: "X-Hub-Signature does not match the body" };
  } else if (shared !== undefined) {
    if (!timingSafeStringEqual(shared, secret)) return { ok: false, reason: "the shared secret header does not match" };
  } else {
    return { ok: false, reason: "neither X-Hub-Signature nor the shared secret header" };
  }
  const stamp = bodyTimestamp(req.rawBody);
  if (stamp !== null) {
    const age = req.receivedAt.getTime() - stamp;
    if (age > JIRA_MAX_AGE_MS) return { ok: false, reason: "timestamp too old (a replay)" };
    if (age < -JIRA_MAX_SKEW_MS) return { ok: false, reason: "timestamp in the future" };
  }
  return { ok: true };
}

function bodyTimestamp(raw: Buffer): number | null {
  try {
    const body: unknown = JSON.parse(raw.toString("utf8"));
    const t = typeof body === "object" && body !== null ? (body as { timestamp?: unknown }).timestamp : undefined;
    return typeof t === "number" && Number.isFinite(t) ? t : null;
  } catch {
    return null;
  }
}
