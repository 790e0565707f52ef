import { z } from "zod";

/**
 * An http(s) URL with its scheme: zod's plain `z.url()` takes anything `new URL()` parses, and
 * `localhost:8080` parses (as scheme `localhost:`), so a missing `http://` would pass start-up.
 */
export const httpUrl = (example: string) => z.url({ protocol: /^https?$/, error: `an http(s) URL with its scheme, e.g. ${example}` });

/** Variables whose value is a credential: a refusal names them but never prints the value. */
const SECRET_NAME = /SECRET|TOKEN|PASSWORD|PRIVATE_KEY|API_KEY|_KEY$/;

/** What a refusal shows of a value: a credential's length only; a URL without its user:password. */
export function shownValue(name: string, value: string): string {
  if (SECRET_NAME.test(name)) return `a value of ${value.length} characters, not shown`;
  return `got "${value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, "$1***@")}"`;
}

/** What `open-swe config check` shows of a value: a credential's length only; a URL without its user:password. */
export function maskedValue(name: string, value: string): string {
  if (SECRET_NAME.test(name)) return `*** (${value.length} characters, not shown)`;
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, "$1***@");
}

/** Whether a variable holds a credential (its value is never printed). */
export const isSecretName = (name: string): boolean => SECRET_NAME.test(name);

/** Pure: one problem as one line — the variable, why, and what it was (shownValue). */
export function envIssueLine(issue: z.core.$ZodIssue | undefined, env: Record<string, string | undefined>): string {
  const name = issue?.path.join(".") || "environment";
  return `invalid ${name}: ${issue?.message ?? "invalid value"} (${shownValue(name, env[name] ?? "")})`;
}

/** Pure: the one line a refused environment says — the first bad variable, why, and what it was (shownValue). */
export function envRefusal(error: z.ZodError, env: Record<string, string | undefined>): string {
  return envIssueLine(error.issues[0], env);
}
