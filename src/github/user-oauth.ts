import { createHash, randomBytes } from "node:crypto";
import { ProbotOctokit } from "probot";
import { z } from "zod";
import { OpenSweError } from "../errors.js";

export interface OAuthClient {
  clientId: string;
  clientSecret: string;
  /** `https://github.com` or `https://<GHE_HOST>`: where the authorize and token endpoints live. */
  webBase: string;
  /** `https://api.github.com` or `https://<GHE_HOST>/api/v3`. */
  apiBase: string;
}

export class OAuthError extends OpenSweError<"oauth_failed"> {
  constructor(message: string, cause?: unknown) {
    super("oauth_failed", message, cause === undefined ? undefined : { cause });
  }
}

const b64url = (b: Buffer) => b.toString("base64url");

/** A fresh `state` and PKCE pair (RFC 7636, S256). */
export function newAuthorization(): { state: string; verifier: string; challenge: string } {
  const verifier = b64url(randomBytes(32));
  return { state: b64url(randomBytes(24)), verifier, challenge: b64url(createHash("sha256").update(verifier).digest()) };
}

/** Pure: GitHub's authorize URL for this client, state and challenge. */
export function authorizeUrl(client: OAuthClient, o: { redirectUri: string; state: string; challenge: string }): string {
  const u = new URL("/login/oauth/authorize", client.webBase);
  u.search = new URLSearchParams({
    client_id: client.clientId,
    redirect_uri: o.redirectUri,
    state: o.state,
    code_challenge: o.challenge,
    code_challenge_method: "S256",
    allow_signup: "false",
  }).toString();
  return u.toString();
}

/** GitHub's token answer: a GitHub App's user token expires (8 h) and comes with a refresh token (6 months). */
export const TokenAnswer = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  expires_in: z.coerce.number().int().positive().optional(),
  refresh_token_expires_in: z.coerce.number().int().positive().optional(),
});
export interface UserToken {
  accessToken: string;
  refreshToken?: string;
  /** ms since epoch; undefined when the app's tokens do not expire. */
  expiresAt?: number;
  refreshExpiresAt?: number;
}

async function tokenRequest(client: OAuthClient, params: Record<string, string>, now: number): Promise<UserToken> {
  let res: Response;
  try {
    res = await fetch(new URL("/login/oauth/access_token", client.webBase), {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json" },
      body: JSON.stringify({ client_id: client.clientId, client_secret: client.clientSecret, ...params }),
      signal: AbortSignal.timeout(15_000),
    });
  } catch (err) {
    throw new OAuthError("GitHub could not be reached to finish signing in", err);
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  // GitHub answers 200 with `{ error, error_description }` for a bad or used code.
  if (!res.ok || typeof body["error"] === "string") {
    throw new OAuthError(`GitHub refused the sign-in (${typeof body["error"] === "string" ? body["error"] : `HTTP ${res.status}`})`);
  }
  const parsed = TokenAnswer.safeParse(body);
  if (!parsed.success) throw new OAuthError("GitHub's token answer had no access token");
  const t = parsed.data;
  return {
    accessToken: t.access_token,
    ...(t.refresh_token ? { refreshToken: t.refresh_token } : {}),
    ...(t.expires_in ? { expiresAt: now + t.expires_in * 1000 } : {}),
    ...(t.refresh_token_expires_in ? { refreshExpiresAt: now + t.refresh_token_expires_in * 1000 } : {}),
  };
}

export function exchangeCode(client: OAuthClient, o: { code: string; verifier: string; redirectUri: string }, now = Date.now()): Promise<UserToken> {
  return tokenRequest(client, { code: o.code, code_verifier: o.verifier, redirect_uri: o.redirectUri }, now);
}

export function refreshUserToken(client: OAuthClient, refreshToken: string, now = Date.now()): Promise<UserToken> {
  return tokenRequest(client, { grant_type: "refresh_token", refresh_token: refreshToken }, now);
}

const GitHubUser = z.object({ login: z.string().min(1), id: z.number().int() });
const InstallationRepo = z.object({ full_name: z.string(), permissions: z.object({ push: z.boolean().optional(), admin: z.boolean().optional() }).optional() });

/**
 * An Octokit acting as the signed-in user (Probot's: pagination, retry, throttling), each request given
 * 15 s. The code exchange above stays a plain POST: it is not the REST API.
 */
function userOctokit(client: OAuthClient, token: string): ProbotOctokit {
  return new ProbotOctokit({
    auth: { token },
    baseUrl: client.apiBase.replace(/\/$/, ""),
    userAgent: "open-swe-dashboard",
    request: { fetch: (url: string | URL, init?: RequestInit) => fetch(url, { ...init, signal: AbortSignal.timeout(15_000) }) },
  });
}

const statusOf = (err: unknown): number | undefined => {
  const s = (err as { status?: unknown } | null)?.status;
  return typeof s === "number" ? s : undefined;
};

export async function fetchUser(client: OAuthClient, token: string): Promise<{ login: string; id: number }> {
  let data: unknown;
  try {
    data = (await userOctokit(client, token).request("GET /user")).data;
  } catch (err) {
    throw new OAuthError(`GitHub did not say who signed in (${statusOf(err) ? `HTTP ${statusOf(err)}` : "unreachable"})`, err);
  }
  return GitHubUser.parse(data);
}

/**
 * The repos of one installation this user can push to, asked with the user's own token (GitHub answers
 * only what both the app and the user can see, with the user's permissions), every page. 404/403: none.
 */
export async function writableInInstallation(client: OAuthClient, token: string, installationId: number): Promise<string[]> {
  let repos: unknown[];
  try {
    repos = await userOctokit(client, token).paginate("GET /user/installations/{installation_id}/repositories", { installation_id: installationId, per_page: 100, page: 1 });
  } catch (err) {
    const status = statusOf(err);
    if (status === 404 || status === 403) return [];
    throw new OAuthError(`GitHub did not list your repositories (${status ? `HTTP ${status}` : "unreachable"})`, err);
  }
  const out: string[] = [];
  for (const r of z.array(InstallationRepo).parse(repos)) if (r.permissions?.push || r.permissions?.admin) out.push(r.full_name.toLowerCase());
  return out;
}
