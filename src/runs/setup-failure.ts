import { UnrecoverableError } from "bullmq";
import { errorMessage } from "../errors.js";
import { SandboxError } from "../sandbox/types.js";
import { upstreamStatusOf } from "../shared/upstream-failure.js";

/** errno codes a person can act on (or an operator can), said in words with the code kept. */
const ERRNO_TEXT: Record<string, string> = {
  ENOSPC: "the worker is out of disk space (ENOSPC)",
  EDQUOT: "the worker's disk quota is used up (EDQUOT)",
  EROFS: "the worker's disk became read-only (EROFS)",
  ESTALE: "a file handle on the worker went stale (ESTALE: the workspace's mount was changed under it)",
  EMFILE: "the worker has too many files open (EMFILE)",
  ENOMEM: "the worker is out of memory (ENOMEM)",
};

function errnoOf(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && ERRNO_TEXT[code]) return code;
    const inMessage = /\b(ENOSPC|EDQUOT|EROFS|ESTALE|EMFILE|ENOMEM)\b/.exec(errorMessage(e))?.[1];
    if (inMessage) return inMessage;
  }
  return undefined;
}

/**
 * The reply for a run that failed before its agent loop began (workspace, sandbox, inputs): the cause in
 * words a person can pass on, never blamed on the request; GitHub's trouble never on the worker. Pure.
 */
export function setupFailureReply(err: unknown): string {
  const upstream = upstreamStatusOf(err);
  if (upstream !== undefined) {
    return `I could not start on this: GitHub kept failing while I prepared the workspace (HTTP ${upstream}), an upstream error, not your request. Nothing was changed; ask again in a while.`;
  }
  const errno = errnoOf(err);
  const cause = errno ? ERRNO_TEXT[errno]! : err instanceof SandboxError ? `the sandbox could not be made (${err.code}): ${err.message}` : `preparing the workspace failed: ${errorMessage(err)}`;
  return `I could not start on this: ${cause}. Nothing was changed. An operator needs to look at the worker; ask again once it is fixed.`;
}

/** Only the attempt that will not be retried says so: an earlier one may still succeed. */
export function isLastAttempt(err: unknown, attempt: number, attempts: number): boolean {
  return err instanceof UnrecoverableError || attempt >= attempts;
}
