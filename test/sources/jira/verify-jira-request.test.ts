import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { IncomingHttpHeaders } from "node:http";
import { JIRA_MAX_AGE_MS, JIRA_SECRET_HEADER, verifyJiraRequest } from "../../../src/sources/jira/verify-jira-request.js";

const SECRET = "jira-webhook-secret-0123456789";
const NOW = new Date("2026-12-01T12:00:00Z");
const body = (extra: Record<string, unknown> = {}) => Buffer.from(JSON.stringify({ webhookEvent: "comment_created", ...extra }));
const hub = (raw: Buffer, secret = SECRET) => `sha256=${createHmac("sha256", secret).update(raw).digest("hex")}`;
const req = (rawBody: Buffer, headers: IncomingHttpHeaders) => ({ method: "POST", url: "/webhooks/jira", headers, rawBody, receivedAt: NOW });

describe("verifyJiraRequest", () => {
  const raw = body();
  const cases: [string, ReturnType<typeof req>, string | undefined, boolean][] = [
    ["a valid X-Hub-Signature", req(raw, { "x-hub-signature": hub(raw) }), SECRET, true],
    ["upper-case hex is the same signature", req(raw, { "x-hub-signature": hub(raw).toUpperCase().replace("SHA256", "sha256") }), SECRET, true],
    ["the shared secret header", req(raw, { [JIRA_SECRET_HEADER]: SECRET }), SECRET, true],
    ["no secret configured refuses everything", req(raw, { "x-hub-signature": hub(raw) }), undefined, false],
    ["no credential at all", req(raw, {}), SECRET, false],
    ["a signature made with another secret", req(raw, { "x-hub-signature": hub(raw, "another-secret-0123456789") }), SECRET, false],
    ["a signature of another body", req(body({ x: 1 }), { "x-hub-signature": hub(raw) }), SECRET, false],
    ["sha1 signature form", req(raw, { "x-hub-signature": "sha1=" + "a".repeat(40) }), SECRET, false],
    ["a wrong shared secret", req(raw, { [JIRA_SECRET_HEADER]: SECRET.slice(0, -1) }), SECRET, false],
    ["a shared secret with a suffix", req(raw, { [JIRA_SECRET_HEADER]: SECRET + "x" }), SECRET, false],
    ["a bad signature is not rescued by a good shared secret", req(raw, { "x-hub-signature": hub(raw, "nope-nope-nope-nope"), [JIRA_SECRET_HEADER]: SECRET }), SECRET, false],
  ];
  it.each(cases)("%s", (_n, r, secret, ok) => {
    expect(verifyJiraRequest(r, secret).ok).toBe(ok);
  });

  it("refuses a signed body whose timestamp is older than the window, or in the future", () => {
    const old = body({ timestamp: NOW.getTime() - JIRA_MAX_AGE_MS - 1 });
    expect(verifyJiraRequest(req(old, { "x-hub-signature": hub(old) }), SECRET)).toEqual({ ok: false, reason: "timestamp too old (a replay)" });
    const future = body({ timestamp: NOW.getTime() + 10 * 60_000 });
    expect(verifyJiraRequest(req(future, { [JIRA_SECRET_HEADER]: SECRET }), SECRET)).toEqual({ ok: false, reason: "timestamp in the future" });
    const fresh = body({ timestamp: NOW.getTime() - 60_000 });
    expect(verifyJiraRequest(req(fresh, { "x-hub-signature": hub(fresh) }), SECRET).ok).toBe(true);
  });
});
