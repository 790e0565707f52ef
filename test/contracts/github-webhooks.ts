import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import { describe, prepareSchema, standalone } from "./github-openapi.js";

/**
 * GitHub's webhook descriptions (`@octokit/openapi-webhooks`, api.github.com) as the contract of the
 * deliveries tests sign and send through Probot. Same mode as mocked responses: the event+action must
 * exist, and the fields a fixture carries must have the documented types (fixtures carry only what the
 * app reads, so `required`/`additionalProperties` are not enforced).
 */

const require = createRequire(import.meta.url);
type Json = Record<string, unknown>;

export const WEBHOOKS_DESCRIPTION = "@octokit/openapi-webhooks/generated/api.github.com.json";

let doc: Json | undefined;
const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, validateFormats: false });
const compiled = new Map<string, ValidateFunction>();

function spec(): Json {
  doc ??= JSON.parse(readFileSync(require.resolve(WEBHOOKS_DESCRIPTION), "utf8")) as Json;
  return doc;
}

/** The description's key for an event and action: `issue_comment` + `created` → `issue-comment-created`. */
export function webhookKey(event: string, action: unknown): string | undefined {
  const hooks = spec().webhooks as Json;
  const base = event.replace(/_/g, "-");
  const act = typeof action === "string" ? action.replace(/_/g, "-") : undefined;
  if (act && `${base}-${act}` in hooks) return `${base}-${act}`;
  return base in hooks ? base : undefined;
}

/** Violations of one delivery's payload against its event's schema (empty when it conforms). */
export function checkWebhook(event: string, payload: unknown): string[] {
  const action = payload && typeof payload === "object" ? (payload as Json).action : undefined;
  const key = webhookKey(event, action);
  const label = `${event}${typeof action === "string" ? `.${action}` : ""}`;
  if (!key) return [`webhook ${label}: no such event and action in GitHub's webhook descriptions`];
  let v = compiled.get(key);
  if (!v) {
    v = ajv.compile(prepareSchema(standalone(["webhooks", key, "post", "requestBody", "content", "application/json", "schema"], spec()), true) as Json);
    compiled.set(key, v);
  }
  return v(payload) ? [] : describe(v.errors, `webhook ${label} (${key}): payload $`);
}
