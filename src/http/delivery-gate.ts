import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { sendJson } from "../net/raw-body.js";
import type { DeliveryDedupe } from "../store/delivery-dedupe.js";

/** The body's HMAC-SHA256 (hex) when `header` (`X-Hub-Signature-256`) is exactly it, else null. */
export function verifiedBodyHash(secret: string, body: string, header: string | undefined): string | null {
  if (!header?.startsWith("sha256=")) return null;
  const hex = createHmac("sha256", secret).update(body).digest("hex");
  const given = Buffer.from(header.slice(7));
  return given.length === hex.length && timingSafeEqual(given, Buffer.from(hex)) ? hex : null;
}

/**
 * Runs after the body limit (`req.body` is the raw string), before Probot's handlers: a signed delivery
 * whose id or body was seen within the window (`DeliveryDedupe`) is answered 200 with `duplicate` and one
 * info line, so GitHub does not retry and no handler runs; its jobs — wherever they were routed — are
 * the first delivery's. A body whose signature does not hold is left to Probot (its 400). A delivery the
 * handlers then refuse or fail (4xx/5xx) gives its claim back.
 */
export function deliveryGate(o: { secret: string; dedupe: DeliveryDedupe; log: Logger }) {
  return async (req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<boolean> => {
    if (typeof req.body !== "string") return false;
    const hash = verifiedBodyHash(o.secret, req.body, req.headers["x-hub-signature-256"] as string | undefined);
    const deliveryId = req.headers["x-github-delivery"];
    if (hash === null || typeof deliveryId !== "string") return false;
    let seen: Awaited<ReturnType<DeliveryDedupe["claim"]>>;
    try {
      seen = await o.dedupe.claim(deliveryId, hash);
    } catch (err) {
      o.log.error({ deliveryId, err: String(err) }, "could not check the delivery against those already received");
      return sendJson(res, 503, { error: "the event could not be queued right now; redeliver it later" });
    }
    if (seen !== "new") {
      o.log.info({ deliveryId, event: req.headers["x-github-event"], seen }, "webhook delivery already received: not handled again");
      return sendJson(res, 200, { ok: true, duplicate: seen });
    }
    res.once("finish", () => {
      if (res.statusCode >= 400) o.dedupe.release(deliveryId, hash).catch(() => undefined);
    });
    return false;
  };
}
