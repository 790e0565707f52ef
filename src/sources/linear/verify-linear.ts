import { LinearWebhookClient } from "@linear/sdk/webhooks";
import { errorMessage } from "../../errors.js";
import { header } from "../header.js";
import type { InboundRequest, Verification } from "../source.js";

const WINDOW_MS = 60_000;

/**
 * `linear-signature` is the hex HMAC-SHA256 of the raw body; the signed `webhookTimestamp` must be
 * within 60 s of when we received it, either way. The SDK checks both against the clock and throws;
 * we check the window again against `receivedAt`, so a request that waited in a queue is judged by
 * its arrival, and a future timestamp is refused even if the SDK's rule changes.
 */
export function verifyLinearRequest(secret: string | null, req: InboundRequest): Verification {
  if (!secret) return { ok: false, reason: "LINEAR_WEBHOOK_SECRET is not set" };
  if (req.method !== "POST") return { ok: false, reason: `method ${req.method}` };
  const signature = header(req.headers, "linear-signature");
  if (!signature) return { ok: false, reason: "no linear-signature header" };
  try {
    new LinearWebhookClient(secret).verify(req.rawBody, signature);
  } catch (err) {
    return { ok: false, reason: `linear verify: ${errorMessage(err)}` };
  }
  let timestamp: unknown;
  try {
    timestamp = (JSON.parse(req.rawBody.toString("utf8")) as { webhookTimestamp?: unknown }).webhookTimestamp;
  } catch {
    return { ok: false, reason: "body is not JSON" };
  }
  if (typeof timestamp !== "number" || !Number.isFinite(timestamp)) return { ok: false, reason: "no webhookTimestamp" };
  const skew = req.receivedAt.getTime() - timestamp;
  if (Math.abs(skew) > WINDOW_MS) return { ok: false, reason: skew > 0 ? "webhookTimestamp older than 60 s" : "webhookTimestamp more than 60 s ahead" };
  return { ok: true };
}
