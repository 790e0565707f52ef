import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { rateLimitedLog } from "../logger.js";
import { readRawBody, sendJson } from "../net/raw-body.js";
import { webhookBodiesRefused } from "../observability/metrics.js";
import { addressKey, type UnverifiedBodies } from "./unverified-bodies.js";

/** Letters, digits, `_`, `-` and single-`/`-led segments: no dot segment, escape, query, host or backslash to normalise. */
const PLAIN_PATH = /^\/(?!\/)[\w/-]*$/;

/**
 * The path a request is routed to, computed exactly as @octokit/webhooks' middleware does (trailing
 * slashes trimmed, then WHATWG URL parsing), so absolute-form URIs, `#fragments`, `/./`, `/x/../` and
 * backslashes are matched here the same way Probot will route them. `null` when the URL does not parse.
 */
export function routedPath(url: string): string | null {
  const trimmed = url.replace(/\/+$/, "") || "/";
  // The usual request (`/api/github/webhooks`) is already what URL parsing would make of it: no parse.
  if (PLAIN_PATH.test(trimmed)) return trimmed;
  try {
    return new URL(trimmed, "http://localhost").pathname;
  } catch {
    return null;
  }
}

/** The headers every GitHub delivery carries (@octokit/webhooks' `WEBHOOK_HEADERS`). */
const GITHUB_WEBHOOK_HEADERS = ["x-github-event", "x-hub-signature-256", "x-github-delivery"] as const;

export interface WebhookBodyLimitOptions {
  path: string;
  /** MAX_WEBHOOK_BYTES: GitHub's own cap on a payload (25 MB). */
  limit: number;
  /** What may be held at once before a signature is checked, per address and in total. */
  bodies: UnverifiedBodies;
  log: Logger;
}

/**
 * Runs before Probot's webhook middleware: every POST that Probot would route to the webhook path,
 * whatever its spelling, takes a slot among the unverified bodies (429 when its address holds too many,
 * 503 when the route does, both with `Retry-After`), is read under the size limit (413 as soon as it is
 * passed), and the raw string is handed on as `req.body` (a body that cannot be a JSON object is a 400),
 * which @octokit/webhooks verifies byte-for-byte before parsing. The slot is given back when the request
 * is answered: after the signature check and the handler, or at the refusal.
 */
export function webhookBodyLimit({ path, limit, bodies, log }: WebhookBodyLimitOptions) {
  const refused = rateLimitedLog(log, "webhook body refused", 10_000);
  const refuse = (res: ServerResponse, address: string, r: { status: number; reason: string; retryAfter?: number }) => {
    const reason = r.status === 413 ? "too_large" : r.status === 429 ? "address_busy" : r.status === 503 ? "server_busy" : "unreadable";
    webhookBodiesRefused.inc({ reason });
    refused({ status: r.status, reason, address });
    res.setHeader("connection", "close");
    if (r.retryAfter !== undefined) res.setHeader("retry-after", String(r.retryAfter));
    return sendJson(res, r.status, { error: r.reason });
  };
  return async (req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<boolean> => {
    if (req.method !== "POST" || routedPath(req.url ?? "") !== path) return false;
    // What @octokit/webhooks would refuse on the headers alone is refused here before the body is read
    // (its own words), and the connection closed instead of draining an unsigned body.
    const refusal = !/^\s*application\/json\s*(?:;|$)/i.test(req.headers["content-type"] ?? "")
      ? { status: 415, error: 'Unsupported "Content-Type" header value. Must be "application/json"' }
      : GITHUB_WEBHOOK_HEADERS.some((h) => req.headers[h] === undefined)
        ? { status: 400, error: `Required headers missing: ${GITHUB_WEBHOOK_HEADERS.filter((h) => req.headers[h] === undefined).join(", ")}` }
        : null;
    if (refusal) {
      res.setHeader("connection", "close");
      return sendJson(res, refusal.status, { error: refusal.error });
    }
    const address = addressKey(req.socket.remoteAddress);
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > limit) return refuse(res, address, { status: 413, reason: `body larger than ${limit} bytes` });
    const opened = bodies.open(address, Number.isFinite(declared) ? declared : 0);
    if ("refusal" in opened) return refuse(res, address, opened.refusal);
    res.once("close", opened.slot.release);
    const result = await readRawBody(req, limit, opened.slot.take);
    if (!result.ok) return refuse(res, address, result);
    // Every GitHub payload is an object; anything else would make @octokit/webhooks fail with internal
    // error text (a bare string or `null` is not an event), so it is refused here. No parse needed.
    if (!/^\s*\{/.test(result.body)) return sendJson(res, 400, { error: "the payload must be a JSON object" });
    req.body = result.body;
    return false;
  };
}
