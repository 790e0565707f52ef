import { errorMessage } from "../errors.js";
import { upstreamStatusOf } from "./upstream-failure.js";

/**
 * Pure: why a review or a run crashed, as a check run or a reply may say it — an upstream service's trouble
 * (a 5xx or rate limit, with its status: not a problem with `subject`), a connection the worker lost, or the
 * worker's own error — never an internal message (a Redis or library error text, a provider's JSON body, a
 * path): that goes to the worker's log and the run's record.
 */
export function failureReason(err: unknown, subject: string): string {
  const status = upstreamStatusOf(err);
  if (status !== undefined) return `an upstream service (GitHub or the model provider) failed (HTTP ${status}), not a problem with ${subject}`;
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (/\b(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE)\b|Connection is closed/.test(errorMessage(e)))
      return "the worker lost a connection it needs (its store or the network); the worker's log has the details";
  }
  return "an internal error; the worker's log has the details";
}
