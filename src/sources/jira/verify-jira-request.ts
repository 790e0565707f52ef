import type { InboundRequest, Verification } from "../source.js";
import { ATLASSIAN_MAX_AGE_MS, verifyAtlassianWebRequest } from "../atlassian/verify-web-request.js";

/** The header an Automation "Send web request" action carries the shared secret in. */
export const JIRA_SECRET_HEADER = "x-open-swe-webhook-secret";
/** A signed body's `timestamp` older than this is a replay (Jira's own retries come within minutes). */
export const JIRA_MAX_AGE_MS = ATLASSIAN_MAX_AGE_MS;

/**
 * A Jira delivery is trusted when it carries the admin webhook's `X-Hub-Signature: sha256=<HMAC of the raw body>`
 * or the shared secret header; a `timestamp` in the body (ms, as Jira sends) must be recent.
 */
export function verifyJiraRequest(req: InboundRequest, secret: string | undefined): Verification {
  return verifyAtlassianWebRequest(req, secret, { secretHeader: JIRA_SECRET_HEADER, secretEnv: "JIRA_WEBHOOK_SECRET" });
}
