import { LinearClient, LinearError, LinearErrorType } from "@linear/sdk";
import type { z } from "zod";
import { errorMessage, OpenSweError } from "../../errors.js";

/**
 * `rejected`: Linear refused what we asked (bad id, invalid field) — the caller's input.
 * `not_found`: the entity is gone. `upstream`: Linear failed, refused our credential or limited us —
 * never the caller's fault; worth retrying later.
 */
export type LinearApiErrorCode = "linear_rejected" | "linear_not_found" | "linear_upstream";

export class LinearApiError extends OpenSweError<LinearApiErrorCode> {
  constructor(code: LinearApiErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

const INPUT_TYPES = new Set<LinearErrorType>([LinearErrorType.InvalidInput, LinearErrorType.UserError]);

export function toLinearApiError(err: unknown): LinearApiError {
  if (err instanceof LinearApiError) return err;
  if (err instanceof LinearError) {
    const message = err.errors?.[0]?.message ?? err.message;
    if ((err.type !== undefined && INPUT_TYPES.has(err.type)) || err.errors?.[0]?.userError === true) {
      const code = /not found|could not find|does not exist/i.test(message) ? "linear_not_found" : "linear_rejected";
      return new LinearApiError(code, `Linear rejected the request: ${message}`, { cause: err });
    }
    const status = err.status ? ` (HTTP ${err.status})` : "";
    return new LinearApiError("linear_upstream", `Linear's API failed${status}: ${message}. This is an upstream error, not a problem with the request; try again later.`, { cause: err });
  }
  return new LinearApiError("linear_upstream", `Linear's API could not be reached: ${errorMessage(err)}. This is an upstream error; try again later.`, { cause: err });
}

/** One GraphQL call over the SDK's client (auth, error typing), its answer checked by a zod schema. */
export class LinearApi {
  constructor(
    private readonly credential: { apiKey: string } | { accessToken: string },
    private readonly apiUrl?: string,
    /** A call that takes longer is abandoned as an upstream error: a hung Linear must not hang a job or a tool. */
    private readonly timeoutMs = 30_000,
  ) {}

  async request<S extends z.ZodType>(query: string, variables: Record<string, unknown>, schema: S): Promise<z.infer<S>> {
    // A client per call: its options (and so the abort signal) go to every fetch it makes.
    const client = new LinearClient({ ...this.credential, ...(this.apiUrl ? { apiUrl: this.apiUrl } : {}), signal: AbortSignal.timeout(this.timeoutMs) });
    let data: unknown;
    try {
      data = (await client.client.rawRequest(query, variables)).data;
    } catch (err) {
      throw toLinearApiError(err);
    }
    const parsed = schema.safeParse(data);
    if (!parsed.success) throw new LinearApiError("linear_upstream", `Linear's API answered in an unexpected shape (${parsed.error.issues[0]?.path.join(".") || "root"}); an upstream error.`);
    return parsed.data;
  }
}
