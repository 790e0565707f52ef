import { errorMessage } from "../errors.js";
import { upstreamStatusOf } from "../shared/upstream-failure.js";

/**
 * Pure: why a review crashed, as the check run and the reply may say it — an upstream service's trouble
 * (a 5xx or rate limit, with its status) or the worker's own, never an internal message (a Redis or
 * library error text, a provider's JSON body): that goes to the worker's log.
 */
export function reviewFailureReason(err: unknown): string {
  const status = upstreamStatusOf(err);
  if (status !== undefined) return `an upstream service (GitHub or the model provider) failed (HTTP ${status}), not a problem with the pull request`;
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (/\b(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE)\b|Connection is closed/.test(errorMessage(e)))
      return "the worker lost a connection it needs (its store or the network); the worker's log has the details";
  }
  return "an internal error; the worker's log has the details";
}
