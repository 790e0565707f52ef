import { createHmac } from "node:crypto";
import type { InboundRequest, Verification } from "../source.js";
import { header } from "../header.js";
import { timingSafeStringEqual } from "./timing-safe.js";

/** A signed body's `timestamp` older than this is a replay (Atlassian's own retries come within minutes). */
export const ATLASSIAN_MAX_AGE_MS = 60 * 60 * 1000;
export const ATLASSIAN_MAX_SKEW_MS = 5 * 60 * 1000;

/**
 * An Atlassian delivery (a Jira admin webhook, a Jira or Confluence Automation "Send web request") is trusted
 * when it carries `X-Hub-Signature: sha256=<HMAC of the raw body>` or the shared secret in `secretHeader`; a
 * `timestamp` in the body (ms, as Jira sends) must be recent. `secretEnv` names the variable in the reason.
 */
export function verifyAtlassianWebRequest(req: InboundRequest, secret: string | undefined, opts: { secretHeader: string; secretEnv: string }): Verification {
  if (!secret) return { ok: false, reason: `${opts.secretEnv} is not set` };
  const signature = header(req.headers, "x-hub-signature");
  const shared = header(req.headers, opts.secretHeader);
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
    if (age > ATLASSIAN_MAX_AGE_MS) return { ok: false, reason: "timestamp too old (a replay)" };
    if (age < -ATLASSIAN_MAX_SKEW_MS) return { ok: false, reason: "timestamp in the future" };
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
