import { isUpstreamStatus } from "../shared/upstream-failure.js";

/**
 * Pure: what a source's tool tells the model when the service answered `status`. The service's outage or
 * rate limit, or its refusal of the app's own credentials, is never worded as a problem with the request
 * (the model would rewrite a good request, or tell the person theirs was refused).
 */
export function httpFailureText(service: string, status: number, message: string): string {
  if (isUpstreamStatus(status)) return `${service} failed (HTTP ${status}): ${message}. This is an upstream error, not a problem with the request; try again later.`;
  if (status === 401) return `${service} did not accept the app's credentials (HTTP 401): an operator must check them. This is not a problem with the request.`;
  return `${service} refused the request (HTTP ${status}): ${message}`;
}
