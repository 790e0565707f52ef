import { EventSourceParserStream } from "eventsource-parser/stream";
import type { Logger } from "pino";

/** Where GitHub delivers our webhooks (the web server mounts Probot there; the manifest and the relay point at it). */
export const WEBHOOK_PATH = "/api/github/webhooks";

export interface WebhookProxy {
  close(): void;
}

/**
 * For laptops: relays webhooks from a smee.io-style channel (Server-Sent Events whose `data` is the
 * original headers plus `body`) to the local webhook endpoint, as smee-client does. The app still
 * verifies every relayed delivery's signature; the relay adds no trust.
 */
export function startWebhookProxy(source: string, target: string, log: Logger): WebhookProxy {
  const controller = new AbortController();
  let delay = 1_000;
  const forward = async (data: string) => {
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(data) as Record<string, unknown>;
    } catch {
      return;
    }
    if (!("body" in event)) return;
    const { body, query: _query, ...rest } = event;
    const headers = Object.fromEntries(Object.entries(rest).filter(([k, v]) => k.startsWith("x-") && typeof v === "string")) as Record<string, string>;
    const res = await fetch(target, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) });
    log.info({ status: res.status, event: headers["x-github-event"], deliveryId: headers["x-github-delivery"] }, "relayed webhook");
  };
  const connect = async (): Promise<void> => {
    while (!controller.signal.aborted) {
      try {
        const res = await fetch(source, { headers: { accept: "text/event-stream" }, signal: controller.signal });
        if (!res.ok || !res.body) throw new Error(`webhook proxy answered ${res.status}`);
        log.info({ source }, "webhook proxy connected");
        delay = 1_000;
        // The event stream read by eventsource-parser (the WHATWG grammar: LF, CR or CRLF line ends; an event may span chunks).
        const events = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
        for await (const event of events) {
          if (event.data) await forward(event.data).catch((err: unknown) => log.warn({ err: String(err) }, "relay failed"));
        }
      } catch (err) {
        if (controller.signal.aborted) return;
        log.warn({ err: String(err), retryInMs: delay }, "webhook proxy disconnected");
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 30_000);
    }
  };
  void connect();
  return { close: () => controller.abort() };
}

export const SMEE_NEW_CHANNEL_URL = "https://smee.io/new";

/**
 * Creates a smee.io channel the way smee-client does: `HEAD /new` answers with a redirect whose
 * `location` is the new channel. Throws with the reason when the service cannot be reached.
 */
export async function createWebhookChannel(newChannelUrl = SMEE_NEW_CHANNEL_URL): Promise<string> {
  const res = await fetch(newChannelUrl, { method: "HEAD", redirect: "manual", signal: AbortSignal.timeout(10_000) });
  const location = res.headers.get("location");
  if (!location || !/^https?:\/\//.test(location)) throw new Error(`${newChannelUrl} answered ${res.status} without a channel URL`);
  return location;
}
