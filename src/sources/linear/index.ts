import type { Logger } from "pino";
import type { Env } from "../../config/env.js";
import type { Source } from "../source.js";
import { linearClient } from "./linear-client.js";
import { linearSettings } from "./linear-settings.js";
import { parseLinearEvent } from "./parse-linear-event.js";
import { verifyLinearRequest } from "./verify-linear.js";

/** Linear: `POST /webhooks/linear` (Comment and Issue webhooks), answered through the GraphQL API. */
export function linearSource(env: Env, opts: { apiUrl?: string } = {}): Source {
  const settings = linearSettings(env);
  return {
    name: "linear",
    // A request the worker could never answer (no API credential) is refused at the door, not dropped later.
    configured: settings.webhookSecret !== null && settings.credential !== null,
    secretEnv: settings.webhookSecret === null ? "LINEAR_WEBHOOK_SECRET" : "LINEAR_API_KEY",
    routes: [
      {
        method: "POST",
        path: "/webhooks/linear",
        signatureHeaders: ["linear-signature"],
        verify: async (req) => (settings.credential ? verifyLinearRequest(settings.webhookSecret, req) : { ok: false, reason: "LINEAR_API_KEY or LINEAR_ACCESS_TOKEN is not set" }),
        parse: (req) => {
          let body: unknown;
          try {
            body = JSON.parse(req.rawBody.toString("utf8"));
          } catch {
            return { kind: "ignore", reason: "body is not JSON" };
          }
          return parseLinearEvent(body, settings);
        },
      },
    ],
    client: (log: Logger) => linearClient(settings, log, opts.apiUrl),
  };
}
