import { isIP } from "node:net";

/** Host names that always mean this machine. */
const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** `host[:port]` → the host part, lower-cased (`[::1]` keeps its brackets); null when unreadable. */
export function hostOf(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/i.exec(header.trim());
  return m ? m[1]!.toLowerCase() : null;
}

/**
 * Pure: may the setup page answer a request sent with this `Host`? Only for loopback names, IP literals
 * (what a browser sends when it was pointed at this machine's address), APP_URL's host and SETUP_HOST
 * when it is a name. Any other name is DNS rebinding: a page elsewhere whose name now resolves here.
 */
export function setupHostAllowed(hostHeader: string | undefined, o: { appUrl?: string | undefined; setupHost?: string | undefined }): boolean {
  const host = hostOf(hostHeader);
  if (!host) return false;
  if (LOOPBACK_NAMES.has(host) || host.endsWith(".localhost")) return true;
  if (isIP(host.replace(/^\[|\]$/g, "")) !== 0) return true;
  if (o.appUrl && new URL(o.appUrl).hostname.toLowerCase() === host) return true;
  return Boolean(o.setupHost && o.setupHost.toLowerCase() === host);
}

export type WriteRefusal = { status: 403 | 415; reason: string } | null;

/**
 * Pure: is a state-changing request one this page's own script sent? JSON only (a cross-site form or
 * `text/plain` fetch cannot send `application/json` without a preflight, which we never answer),
 * `Sec-Fetch-Site` same-origin when the browser says it, and `Origin` one of ours when present.
 */
export function crossSiteWrite(h: { contentType?: string | undefined; origin?: string | undefined; secFetchSite?: string | undefined }, ownOrigins: string[]): WriteRefusal {
  const type = (h.contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") return { status: 415, reason: "the body must be application/json, sent by the setup page" };
  if (h.secFetchSite !== undefined && h.secFetchSite !== "same-origin") return { status: 403, reason: `a ${h.secFetchSite} request cannot change the setup` };
  if (h.origin !== undefined && !ownOrigins.includes(h.origin.replace(/\/+$/, "").toLowerCase())) return { status: 403, reason: "a request from another origin cannot change the setup" };
  return null;
}

/** `a=1; b=2` → Map; the first value of a repeated name wins. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of (header ?? "").split(";")) {
    const part = raw.trim();
    const i = part.indexOf("=");
    if (i <= 0) continue;
    const name = part.slice(0, i).trim();
    if (!out.has(name)) out.set(name, part.slice(i + 1).trim());
  }
  return out;
}
