import type { Logger } from "pino";
import { ZodError } from "zod";
import { OpenSweError } from "../errors.js";

/** A signed delivery whose payload lacks a field the handler reads: GitHub's delivery log shows 400 + this. */
export class WebhookPayloadError extends OpenSweError<"webhook_payload"> {
  readonly status = 400;
  constructor(message: string, cause: unknown) {
    super("webhook_payload", message, { cause });
  }
}

/** Anything else a handler failed on (Redis down, …): a 503 that names no internals. */
export class WebhookUnavailableError extends OpenSweError<"webhook_unavailable"> {
  readonly status = 503;
  constructor(cause: unknown) {
    super("webhook_unavailable", "the event could not be queued right now; redeliver it later", { cause });
  }
}

const MAX_REASON = 160;

/**
 * Wraps a webhook handler so that what @octokit/webhooks puts in the response body is a short reason,
 * never internal error text: a payload the handler cannot read (a TypeError from a missing field, a
 * ZodError from the job schema) is a 400; any other failure is a 503. The cause is logged once.
 */
export function guardHandler<C extends { name: string; id: string; payload: unknown }>(handler: (ctx: C) => Promise<unknown>, log: Logger): (ctx: C) => Promise<void> {
  return async (ctx) => {
    try {
      await handler(ctx);
    } catch (err) {
      const action = typeof ctx.payload === "object" && ctx.payload !== null && "action" in ctx.payload && typeof ctx.payload.action === "string" ? `.${ctx.payload.action}` : "";
      const event = `${ctx.name}${action}`;
      if (err instanceof ZodError || err instanceof TypeError) {
        log.warn({ deliveryId: ctx.id, event, err }, "malformed webhook payload");
        const issue = err instanceof ZodError ? err.issues[0] : undefined;
        const detail = issue ? `: ${issue.path.join(".") || "payload"}: ${issue.message}` : ": a field the app reads is missing or has the wrong type";
        throw new WebhookPayloadError(`malformed ${event} payload${detail}`.slice(0, MAX_REASON), err);
      }
      log.error({ deliveryId: ctx.id, event, err }, "webhook handler failed");
      throw new WebhookUnavailableError(err);
    }
  };
}
