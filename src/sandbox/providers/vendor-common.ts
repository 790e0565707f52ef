import { posix } from "node:path";
import { errorMessage } from "../../errors.js";
import { SandboxError, type ExecResult, type SandboxErrorCode } from "../types.js";

export function resolveIn(workdir: string, path: string): string {
  return posix.normalize(posix.isAbsolute(path) ? path : posix.join(workdir, path));
}

/** Cuts text to `max` UTF-8 bytes (vendors return everything; we cap like the local provider). */
export function capText(text: string, max: number): { text: string; truncated: boolean } {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= max) return { text, truncated: false };
  return { text: buf.subarray(0, max).toString("utf8"), truncated: true };
}

/** A command's outcome as a vendor reports it, before the output cap. */
export interface RawExec {
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut?: boolean;
}

export function execResult(raw: RawExec, maxOutputBytes: number): ExecResult {
  const out = capText(raw.stdout, maxOutputBytes);
  const err = capText(raw.stderr, maxOutputBytes);
  const timedOut = raw.timedOut ?? false;
  return { exitCode: timedOut ? 124 : raw.exitCode, stdout: out.text, stderr: err.text, truncated: out.truncated || err.truncated, timedOut };
}

const BY_NAME: Record<string, SandboxErrorCode> = {
  NotFoundError: "not_found",
  SandboxNotFoundError: "not_found",
  DaytonaNotFoundError: "not_found",
  AuthenticationError: "auth",
  DaytonaAuthenticationError: "auth",
  DaytonaAuthorizationError: "auth",
  RateLimitError: "quota",
  DaytonaRateLimitError: "quota",
  ResourceExhaustedError: "quota",
  NotEnoughSpaceError: "quota",
  TimeoutError: "timeout",
  DaytonaTimeoutError: "timeout",
  SandboxTimeoutError: "timeout",
  InvalidArgumentError: "invalid",
  InvalidError: "invalid",
  DaytonaInvalidArgumentError: "invalid",
};

/** gRPC status codes (Modal's SDK throws nice-grpc's `ClientError` with one as `code`). */
const BY_GRPC_CODE: Record<number, SandboxErrorCode> = {
  3: "invalid", // INVALID_ARGUMENT
  4: "timeout", // DEADLINE_EXCEEDED
  5: "not_found", // NOT_FOUND
  7: "auth", // PERMISSION_DENIED
  8: "quota", // RESOURCE_EXHAUSTED
  14: "unavailable", // UNAVAILABLE
  16: "auth", // UNAUTHENTICATED
};

function grpcCode(err: unknown): SandboxErrorCode | undefined {
  if (!(err instanceof Error) || err.name !== "ClientError") return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === "number" ? BY_GRPC_CODE[code] : undefined;
}

function statusCode(err: unknown): number | undefined {
  if (!err || typeof err !== "object") return undefined;
  const e = err as { statusCode?: unknown; status?: unknown; response?: { status?: unknown } };
  const s = e.statusCode ?? e.status ?? e.response?.status;
  return typeof s === "number" ? s : undefined;
}

/** One place that triages vendor SDK errors (by class name or gRPC status, then HTTP status, then network code). */
export function vendorError(vendor: string, action: string, err: unknown): SandboxError {
  if (err instanceof SandboxError) return err;
  const name = err instanceof Error ? err.name : "";
  const status = statusCode(err);
  let code: SandboxErrorCode | undefined = BY_NAME[name] ?? grpcCode(err);
  if (!code && status !== undefined) {
    if (status === 404) code = "not_found";
    else if (status === 401 || status === 403) code = "auth";
    else if (status === 429 || status === 402) code = "quota";
    else if (status === 400 || status === 422) code = "invalid";
    else if (status >= 500) code = "unavailable";
  }
  if (!code) {
    const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
    const netCode = e?.code ?? e?.cause?.code;
    code = typeof netCode === "string" && /^(ECONN|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|UND_ERR)/.test(netCode) ? "unreachable" : "unavailable";
  }
  return new SandboxError(code, `${vendor} ${action} failed: ${errorMessage(err)}`, { cause: err });
}

export const ABORTED = Symbol("aborted");

/**
 * Stops waiting when `signal` aborts. The vendor SDKs take no signal: the remote command keeps
 * running until its own `timeout` wrapper ends it, but the caller (a cancelled job) is released now.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T | typeof ABORTED> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.resolve(ABORTED);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => undefined);
      resolve(ABORTED);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

export const ABORTED_RESULT: ExecResult = { exitCode: 124, stdout: "", stderr: "", truncated: false, timedOut: true };
