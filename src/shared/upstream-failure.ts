import { errorMessage } from "../errors.js";

/** Pure: an HTTP status that is the service's trouble (an outage or a rate limit), not the request's. */
export const isUpstreamStatus = (status: number): boolean => status >= 500 || status === 429;

/**
 * Pure: the status of an upstream failure anywhere in `err`'s cause chain — an HTTP error's `status`
 * (Octokit, the model SDKs) or git's "The requested URL returned error: 503" — else undefined.
 */
export function upstreamStatusOf(err: unknown): number | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const status = (e as { status?: unknown }).status;
    if (typeof status === "number" && isUpstreamStatus(status)) return status;
    const fromGit = /The requested URL returned error: (5\d\d|429)\b/.exec(errorMessage(e))?.[1];
    if (fromGit) return Number(fromGit);
  }
  return undefined;
}
