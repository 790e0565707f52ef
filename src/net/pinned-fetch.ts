import { request as httpRequest, STATUS_CODES } from "node:http";
import { request as httpsRequest } from "node:https";
import { Readable } from "node:stream";
import { HttpGuardError, pinnedLookup, type ResolvedAddress } from "./http-guard.js";

/** The `fetch` shape the MCP SDK's transports take. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

const NO_BODY = new Set([101, 204, 205, 304]);

async function bodyBytes(body: RequestInit["body"]): Promise<Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString());
  return Buffer.from(await new Response(body).arrayBuffer());
}

/**
 * A streaming `fetch` that reaches only `origin`, and only at the addresses already checked for it:
 * a second DNS answer (rebinding) never decides where it connects. Redirects are not followed (the
 * caller sees the 3xx); a URL of another origin is refused before any connection.
 */
export function pinnedFetch(origin: URL, addresses: ResolvedAddress[]): FetchLike {
  return async (input, init = {}) => {
    const url = new URL(input instanceof URL ? input.href : String(input));
    if (url.origin !== origin.origin) throw new HttpGuardError("url_blocked", `refusing ${url.origin}: only ${origin.origin} was checked for this server`);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => {
      headers[k] = v;
    });
    const body = await bodyBytes(init.body);
    if (body && headers["content-length"] === undefined) headers["content-length"] = String(body.length);
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    return new Promise<Response>((resolve, reject) => {
      const req = send(url, { method: init.method ?? "GET", headers, lookup: pinnedLookup(addresses), ...(init.signal ? { signal: init.signal } : {}) }, (res) => {
        const status = res.statusCode ?? 0;
        const out = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) for (const one of Array.isArray(v) ? v : [v]) out.append(k, one);
        const stream = NO_BODY.has(status) ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        if (!stream) res.resume();
        resolve(new Response(stream, { status, statusText: STATUS_CODES[status] ?? "", headers: out }));
      });
      req.on("error", reject);
      if (body) req.write(body);
      req.end();
    });
  };
}
