import { AsymmetricAlgorithm, createQueryStringHash, decodeAsymmetric, decodeSymmetric, fromMethodAndUrl, getKeyId, SymmetricAlgorithm } from "atlassian-jwt";
import { z } from "zod";
import type { InboundRequest } from "../source.js";

/** Clock skew we tolerate on `exp` / `iat` / `nbf` (Atlassian signs tokens valid for ~3 minutes). */
export const JWT_LEEWAY_SECONDS = 30;

export type JwtCheck<T> = { ok: true; claims: T } | { ok: false; reason: string };

const Claims = z.looseObject({
  iss: z.string().min(1).max(256),
  iat: z.number(),
  exp: z.number(),
  nbf: z.number().optional(),
  qsh: z.string().min(1),
  aud: z.array(z.string()).optional(),
  sub: z.string().optional(),
});
export type ConnectClaims = z.infer<typeof Claims>;

/** The qsh Atlassian signs: method, path relative to the app's base URL, sorted query (the `jwt` parameter excluded). */
export function connectQsh(method: string, url: string, baseUrl?: string): string {
  return createQueryStringHash(fromMethodAndUrl(method, url), false, baseUrl);
}

/** `Authorization: JWT <token>`, the only place we read a Connect token from. */
export function connectToken(req: InboundRequest): string | null {
  const h = req.headers.authorization;
  const m = typeof h === "string" ? /^JWT ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/.exec(h.trim()) : null;
  return m ? m[1]! : null;
}

/** The claims as the token states them, before any signature is checked: only to find whose secret to check it with. */
export function unverifiedIssuer(token: string): string | null {
  try {
    const claims = decodeSymmetric(token, "unverified", SymmetricAlgorithm.HS256, true) as { iss?: unknown };
    return typeof claims.iss === "string" && claims.iss.length <= 256 ? claims.iss : null;
  } catch {
    return null;
  }
}

/** The library verifies signatures only: we check the claims' shape, the time window and the qsh. */
function checkClaims(raw: unknown, req: InboundRequest, appBaseUrl: string): JwtCheck<ConnectClaims> {
  const parsed = Claims.safeParse(raw);
  if (!parsed.success) return { ok: false, reason: `claims missing or malformed (${parsed.error.issues[0]?.path.join(".") ?? "?"})` };
  const c = parsed.data;
  const now = Math.floor(req.receivedAt.getTime() / 1000);
  if (c.exp + JWT_LEEWAY_SECONDS < now) return { ok: false, reason: "token expired" };
  if (c.iat - JWT_LEEWAY_SECONDS > now) return { ok: false, reason: "token issued in the future" };
  if (c.nbf !== undefined && c.nbf - JWT_LEEWAY_SECONDS > now) return { ok: false, reason: "token not yet valid" };
  if (c.qsh !== connectQsh(req.method, req.url, appBaseUrl)) return { ok: false, reason: "qsh does not match the request" };
  return { ok: true, claims: c };
}

/** A host → app request (webhook) signed HS256 with the install's shared secret. */
export function verifySymmetric(token: string, sharedSecret: string, req: InboundRequest, appBaseUrl: string): JwtCheck<ConnectClaims> {
  let raw: unknown;
  try {
    raw = decodeSymmetric(token, sharedSecret, SymmetricAlgorithm.HS256);
  } catch {
    return { ok: false, reason: "signature or algorithm refused" };
  }
  return checkClaims(raw, req, appBaseUrl);
}

export type InstallKeyFetcher = (kid: string) => Promise<string>;

/** A lifecycle callback (signed install): RS256 with Atlassian's key named by `kid`, `aud` = our base URL. */
export async function verifyAsymmetric(token: string, fetchKey: InstallKeyFetcher, req: InboundRequest, appBaseUrl: string): Promise<JwtCheck<ConnectClaims>> {
  let kid: unknown;
  try {
    kid = getKeyId(token);
  } catch {
    return { ok: false, reason: "token header unreadable" };
  }
  if (typeof kid !== "string" || !/^[A-Za-z0-9._-]{1,128}$/.test(kid) || kid.startsWith(".")) return { ok: false, reason: "kid missing or not a key id" };
  let publicKey: string;
  try {
    publicKey = await fetchKey(kid);
  } catch {
    return { ok: false, reason: "the install key for kid could not be fetched" };
  }
  let raw: unknown;
  try {
    raw = decodeAsymmetric(token, publicKey, AsymmetricAlgorithm.RS256);
  } catch {
    return { ok: false, reason: "signature or algorithm refused" };
  }
  const checked = checkClaims(raw, req, appBaseUrl);
  if (!checked.ok) return checked;
  const aud = checked.claims.aud ?? [];
  if (!aud.some((a) => a.replace(/\/+$/, "") === appBaseUrl.replace(/\/+$/, ""))) return { ok: false, reason: "aud is not this app" };
  return checked;
}
