/** Distinct MCP servers a process labels by name; later ones share `other` (repository config names servers: unbounded). */
export const MCP_SERVER_LABELS_MAX = 20;

/**
 * The labels of a tool call's duration, bounded: our own tools by name (a fixed set in the code); an MCP tool
 * (`mcp__<server>__<tool>`: both names come from team or repository config) as `mcp__<server>__*`, its server by
 * name for the first `MCP_SERVER_LABELS_MAX` servers this process saw (`seen`, updated), then `other`.
 */
export function toolLabels(tool: string, server: string, seen: Set<string>, max = MCP_SERVER_LABELS_MAX): { tool: string; server: string } {
  if (!server) return { tool, server };
  if (!seen.has(server) && seen.size < max) seen.add(server);
  const bucket = seen.has(server) ? server : "other";
  return { tool: `mcp__${bucket}__*`, server: bucket };
}

/** The events this app subscribes to (app.yml) or receives unasked; any other header value is `other`. */
const WEBHOOK_EVENTS = new Set([
  "issue_comment",
  "issues",
  "pull_request",
  "pull_request_review",
  "pull_request_review_comment",
  "check_run",
  "check_suite",
  "workflow_run",
  "status",
  "installation",
  "installation_repositories",
  "ping",
]);

/**
 * `open_swe_webhooks_total`'s labels for one request to the webhook path, bounded whatever a sender puts in its
 * headers: `event` (X-GitHub-Event, or `other`), `result` from the status — `accepted` (2xx: queued, or nothing to
 * do), `refused` (4xx: bad signature, body, type or payload), `failed` (5xx: could not be queued).
 */
export function webhookLabels(eventHeader: string | string[] | undefined, status: number): { event: string; result: "accepted" | "refused" | "failed" } {
  const event = typeof eventHeader === "string" && WEBHOOK_EVENTS.has(eventHeader) ? eventHeader : "other";
  return { event, result: status < 400 ? "accepted" : status < 500 ? "refused" : "failed" };
}
