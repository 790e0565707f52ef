import { lookup as dnsLookup } from "node:dns/promises";
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { OpenSweError } from "../errors.js";
import { classifyAddress, hostAddresses } from "./classify-address.js";

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves every address of a host; injected in tests. */
export type LookupAll = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemLookup: LookupAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export type HttpGuardErrorCode = "url_invalid" | "url_blocked" | "too_many_redirects" | "http_timeout" | "http_failed";

export class HttpGuardError extends OpenSweError<HttpGuardErrorCode> {}

export interface GuardedFetchOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Bytes of body kept; the rest is dropped and `truncated` set. */
  maxBytes?: number;
  /** Whole exchange, redirects included. */
  timeoutMs?: number;
  maxRedirects?: number;
  lookup?: LookupAll;
  /** This machine's addresses, read before every hop; injected in tests. */
  hostAddresses?: () => ReadonlySet<string>;
  signal?: AbortSignal;
}

export interface GuardedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The body's bytes as received (binary bodies: images). */
  bytes: Buffer;
  truncated: boolean;
  /** The URL that answered, after redirects. */
  url: string;
  redirects: string[];
}

export const HTTP_DEFAULTS = { maxBytes: 1_000_000, timeoutMs: 20_000, maxRedirects: 5 } as const;

/**
 * Parses the URL and resolves its host, refusing anything that is not a public unicast address
 * (loopback, private, CGNAT, ULA, link-local, cloud metadata, unspecified, multicast, reserved) or that
 * is one of this machine's own interface addresses (read at every check, so on every redirect too).
 * Every resolved address must be public: one private answer among public ones is a rebinding trick.
 */
export async function resolvePublicUrl(raw: string, lookup: LookupAll = systemLookup, ownAddresses: () => ReadonlySet<string> = hostAddresses): Promise<{ url: URL; addresses: ResolvedAddress[] }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new HttpGuardError("url_invalid", `not a valid URL: ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new HttpGuardError("url_invalid", `only http and https URLs are allowed, not ${url.protocol}`);
  }
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: ResolvedAddress[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await lookup(host);
    } catch (err) {
      throw new HttpGuardError("url_invalid", `cannot resolve ${host}`, { cause: err });
    }
    if (addresses.length === 0) throw new HttpGuardError("url_invalid", `cannot resolve ${host}`);
  }
  const own = ownAddresses();
  for (const { address } of addresses) {
    const kind = classifyAddress(address, own);
    if (kind !== "public") {
      const what = kind === "host" ? "an address of this machine" : `a ${kind} address`;
      throw new HttpGuardError("url_blocked", `refusing ${url.origin}: ${host} resolves to ${address}, ${what}`);
    }
  }
  return { url, addresses };
}

/** Connects only to the addresses already checked, so a second DNS answer cannot swap in a private one. */
export function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const first = addresses[0];
    if (!first) return callback(new Error("no address"), "", 4);
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, addresses);
    callback(null, first.address, first.family);
  };
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

interface Hop {
  status: number;
  headers: Record<string, string>;
  body: string;
  bytes: Buffer;
  truncated: boolean;
}

function oneHop(url: URL, addresses: ResolvedAddress[], method: string, headers: Record<string, string>, body: string | undefined, maxBytes: number, signal: AbortSignal): Promise<Hop> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = send(url, { method, headers, lookup: pinnedLookup(addresses), signal }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const finish = (): void => {
        const bytes = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: flattenHeaders(res.headers), body: bytes.toString("utf8"), bytes, truncated });
      };
      res.on("data", (chunk: Buffer) => {
        if (truncated) return;
        const room = maxBytes - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          size = maxBytes;
          truncated = true;
          finish();
          res.destroy();
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on("end", () => {
        if (!truncated) finish();
      });
      res.on("error", (err) => {
        if (!truncated) reject(err);
      });
    });
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/**
 * An HTTP exchange for the agent's web tools: SSRF-guarded on every hop (redirects are followed by
 * hand and re-checked, at most `maxRedirects`), with a byte cap and a whole-exchange time cap.
 */
export async function guardedFetch(raw: string, options: GuardedFetchOptions = {}): Promise<GuardedResponse> {
  const maxBytes = options.maxBytes ?? HTTP_DEFAULTS.maxBytes;
  const timeoutMs = options.timeoutMs ?? HTTP_DEFAULTS.timeoutMs;
  const maxRedirects = options.maxRedirects ?? HTTP_DEFAULTS.maxRedirects;
  const lookup = options.lookup ?? systemLookup;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let method = (options.method ?? "GET").toUpperCase();
  let body = options.body;
  let headers: Record<string, string> = { "accept-encoding": "identity", "user-agent": "open-swe-agent", ...lowerKeys(options.headers ?? {}) };
  const redirects: string[] = [];
  let current = raw;
  try {
    for (;;) {
      const { url, addresses } = await resolvePublicUrl(current, lookup, options.hostAddresses);
      const hop = await oneHop(url, addresses, method, headers, body, maxBytes, signal);
      const location = hop.headers["location"];
      if (!REDIRECTS.has(hop.status) || !location) return { ...hop, url: url.toString(), redirects };
      if (redirects.length >= maxRedirects) {
        throw new HttpGuardError("too_many_redirects", `stopped after ${maxRedirects} redirects (last: ${url.toString()} → ${location})`);
      }
      const next = new URL(location, url);
      redirects.push(next.toString());
      if (hop.status === 303 || ((hop.status === 301 || hop.status === 302) && method === "POST")) {
        method = "GET";
        body = undefined;
        headers = Object.fromEntries(Object.entries(headers).filter(([k]) => k !== "content-type" && k !== "content-length"));
      }
      if (next.origin !== url.origin) headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !CREDENTIAL_HEADERS.includes(k)));
      current = next.toString();
    }
  } catch (err) {
    if (err instanceof HttpGuardError) throw err;
    if (timeout.aborted) throw new HttpGuardError("http_timeout", `no complete answer from ${current} within ${timeoutMs} ms`, { cause: err });
    throw new HttpGuardError("http_failed", `request to ${current} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
