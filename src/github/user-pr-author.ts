import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { ProbotOctokit } from "probot";
import type { AppConfig } from "../config/env.js";
import { refreshUserToken, type OAuthClient } from "./user-oauth.js";
import { OpenSweError } from "../errors.js";
import { SecretBox } from "../store/secret-box.js";
import type { Profile } from "../store/settings-store.js";
import { UserTokens, type StoredUserToken } from "../store/user-tokens.js";
import type { Octokit } from "./app-auth.js";

/** Refreshed this long before it expires, so a PR call never goes out with a token about to lapse. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

/** Who opens a run's PR: the requester (their own token) or the app, with the note the PR carries when it had to fall back. */
export interface PrAuthor {
  /** The requester's Octokit; null: the app opens it. */
  octokit: Octokit | null;
  login: string;
  /** Said in the PR body when the requester asked for "open PRs as me" and the app opened it anyway. */
  fallbackNote: string;
}

export const fallbackNote = (login: string, why: string) => `_Opened by the app instead of @${login}: ${why}. @${login} can authorise again from the dashboard's profile page._`;

/** Pure: does a stored token need refreshing now, and can it be? */
export function tokenAction(t: StoredUserToken, now: number): "use" | "refresh" | "expired" {
  if (t.expiresAt === undefined || t.expiresAt - now > REFRESH_MARGIN_MS) return "use";
  if (t.refreshToken && (t.refreshExpiresAt === undefined || t.refreshExpiresAt > now)) return "refresh";
  return "expired";
}

export function oauthClientOf(config: AppConfig): OAuthClient | null {
  const env = config.env;
  if (!env.GITHUB_CLIENT_ID || !env.GITHUB_CLIENT_SECRET) return null;
  return {
    clientId: env.GITHUB_CLIENT_ID,
    clientSecret: env.GITHUB_CLIENT_SECRET,
    webBase: env.GHE_HOST ? `https://${env.GHE_HOST}` : "https://github.com",
    apiBase: config.github?.baseUrl ?? "https://api.github.com",
  };
}

export function secretBoxOf(config: AppConfig): SecretBox | null {
  const env = config.env;
  return env.OPEN_SWE_SECRET_KEY ? new SecretBox(env.OPEN_SWE_SECRET_KEY, env.OPEN_SWE_SECRET_KEY_PREVIOUS ? [env.OPEN_SWE_SECRET_KEY_PREVIOUS] : []) : null;
}

/**
 * The requester's own GitHub client for their PRs, when their profile asks for it: the sealed token,
 * refreshed first when it is about to expire. Host-side only; the token never enters a payload, a log
 * or a sandbox. Anything missing, expired or refused → null, and the PR says why.
 */
export async function prAuthorFor(o: {
  config: AppConfig;
  redis: Redis;
  prefix: string;
  log: Logger;
  login: string;
  profile: Pick<Profile, "prsAsMe">;
  octokitDefaults?: ConstructorParameters<typeof ProbotOctokit>[0];
  now?: number;
}): Promise<PrAuthor | null> {
  if (!o.profile.prsAsMe) return null;
  const box = secretBoxOf(o.config);
  const client = oauthClientOf(o.config);
  const app = (why: string): PrAuthor => ({ octokit: null, login: o.login, fallbackNote: fallbackNote(o.login, why) });
  if (!box || !client) return app("this server cannot hold user tokens (OPEN_SWE_SECRET_KEY or the OAuth client is not set)");
  const tokens = new UserTokens(o.redis, o.prefix, box);
  let token = await tokens.get(o.login);
  if (!token) return app("no GitHub authorisation of theirs is stored");
  const now = o.now ?? Date.now();
  const action = tokenAction(token, now);
  if (action === "expired") {
    await tokens.remove(o.login);
    return app("their GitHub authorisation expired");
  }
  if (action === "refresh") {
    try {
      token = await refreshUserToken(client, token.refreshToken!, now);
      await tokens.save(o.login, token);
    } catch (err) {
      if (!(err instanceof OpenSweError)) throw err;
      o.log.warn({ login: o.login, err: err.message }, "could not refresh a user token: the app opens the PR");
      await tokens.remove(o.login);
      return app("their GitHub authorisation could not be refreshed (revoked or expired)");
    }
  }
  const octokit = new ProbotOctokit({ auth: { token: token.accessToken }, ...(o.config.github?.baseUrl ? { baseUrl: o.config.github.baseUrl } : {}), ...o.octokitDefaults });
  return { octokit, login: o.login, fallbackNote: fallbackNote(o.login, "GitHub refused their authorisation (revoked or expired)") };
}
