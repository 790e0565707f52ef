import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { header } from "../header.js";
import type { Verification } from "../source.js";

/** Slack's replay window, applied both ways: a request from the future is as suspect as an old one. */
export const SLACK_WINDOW_SECONDS = 300;

/** `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<raw body>`. */
export function slackSignature(secret: string, timestamp: string, rawBody: Buffer | string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:`).update(rawBody).digest("hex")}`;
}

/** Slack's v0 request signature on the raw bytes, timing-safe, within 300 s of `now` either way. */
export function verifySlackSignature(secret: string, headers: IncomingHttpHeaders, rawBody: Buffer, now: Date): Verification {
  const timestamp = header(headers, "x-slack-request-timestamp");
  const given = header(headers, "x-slack-signature");
  if (!timestamp || !given) return { ok: false, reason: "missing signature headers" };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "malformed timestamp" };
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > SLACK_WINDOW_SECONDS) return { ok: false, reason: "timestamp outside the 300 s window" };
  const want = Buffer.from(slackSignature(secret, timestamp, rawBody), "utf8");
  const got = Buffer.from(given, "utf8");
  if (got.length !== want.length || !timingSafeEqual(got, want)) return { ok: false, reason: "signature mismatch" };
  return { ok: true };
}
