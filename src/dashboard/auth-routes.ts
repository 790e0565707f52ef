import { timingSafeEqual } from "node:crypto";
import type { Context, Hono } from "hono";
import { deleteCookie, getSignedCookie, setSignedCookie } from "hono/cookie";
import { OpenSweError } from "../errors.js";
import { UserTokens } from "../store/user-tokens.js";
import type { DashboardDeps, DashboardEnv } from "./dashboard-deps.js";
import { authorizeUrl, exchangeCode, fetchUser, newAuthorization, OAuthError, writableInInstallation } from "../github/user-oauth.js";
import type { Session } from "./session-store.js";
import { layout, messagePage } from "./views/layout.js";
import { html } from "hono/html";

export const SESSION_COOKIE = "osw_session";
const STATE_COOKIE = "osw_oauth_state";

/** Pure: where to go after signing in; only a path inside the dashboard (no `//host`, no scheme). */
export function safeNext(next: string | undefined): string {
  return next && /^\/app(\/[A-Za-z0-9._~%/?&=+-]*)?$/.test(next) && !next.startsWith("//") ? next : "/app";
}

export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function redirectUri(deps: DashboardDeps, c: Context): string {
  const base = deps.config.env.APP_URL ?? new URL(c.req.url).origin;
  return new URL("/auth/callback", base).toString();
}

/** The session behind the request's signed cookie, or null. */
export async function sessionOf(deps: DashboardDeps, c: Context): Promise<{ id: string; session: Session } | null> {
  const id = await getSignedCookie(c, deps.cookieSecret, SESSION_COOKIE);
  if (!id) return null;
  const session = await deps.sessions.get(id);
  return session ? { id, session } : null;
}

/** Writable installed repos of a user, asked with their token; the installations come from the installed-repos record. */
async function writableRepos(deps: DashboardDeps, token: string): Promise<Record<string, number>> {
  const installed = await deps.settings.listInstalled();
  const installations = [...new Set(Object.values(installed).map((r) => r.installationId))];
  const out: Record<string, number> = {};
  for (const id of installations) {
    for (const repo of await writableInInstallation(deps.oauth!, token, id)) if (installed[repo]?.installationId === id) out[repo] = id;
  }
  return out;
}

export function mountAuth(app: Hono<DashboardEnv>, deps: DashboardDeps): void {
  const cookie = { httpOnly: true, sameSite: "Lax", secure: deps.secureCookies, path: "/" } as const;

  app.get("/auth/sign-in", async (c) => {
    const next = safeNext(c.req.query("next"));
    return c.html(
      layout(
        "Sign in",
        null,
        html`<p>Open SWE's dashboard shows the runs of the repositories you can write to.</p>
<p><a href="/auth/login?next=${encodeURIComponent(next)}" class="btn btn-primary" id="sign-in">Sign in with GitHub</a></p>`,
      ),
    );
  });

  app.get("/auth/login", async (c) => {
    if (!deps.oauth)
      return c.html(messagePage("Sign-in is not set up", null, "Sign-in needs GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET (the GitHub App's OAuth client). An operator has to set them."), 503);
    const a = newAuthorization();
    await deps.sessions.savePending(a.state, { verifier: a.verifier, next: safeNext(c.req.query("next")) });
    // The state is also bound to this browser: a callback link made in another browser is refused.
    await setSignedCookie(c, STATE_COOKIE, a.state, deps.cookieSecret, { ...cookie, path: "/auth", maxAge: 600 });
    return c.redirect(authorizeUrl(deps.oauth, { redirectUri: redirectUri(deps, c), state: a.state, challenge: a.challenge }), 302);
  });

  app.get("/auth/callback", async (c) => {
    if (!deps.oauth) return c.html(messagePage("Sign-in is not set up", null, "Sign-in needs GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET."), 503);
    const again = { href: "/auth/sign-in", label: "Sign in again" };
    if (c.req.query("error")) return c.html(messagePage("Sign-in cancelled", null, `GitHub said: ${c.req.query("error_description") ?? c.req.query("error")}`, again), 400);
    const state = c.req.query("state") ?? "";
    const code = c.req.query("code") ?? "";
    const bound = await getSignedCookie(c, deps.cookieSecret, STATE_COOKIE);
    deleteCookie(c, STATE_COOKIE, { path: "/auth" });
    if (!state || !code || !bound || !sameSecret(bound, state))
      return c.html(messagePage("Sign-in failed", null, "The sign-in answer did not match a sign-in started in this browser (state mismatch).", again), 400);
    const pending = await deps.sessions.takePending(state);
    if (!pending) return c.html(messagePage("Sign-in failed", null, "This sign-in expired or was already used.", again), 400);
    try {
      const token = await exchangeCode(deps.oauth, { code, verifier: pending.verifier, redirectUri: redirectUri(deps, c) });
      const user = await fetchUser(deps.oauth, token.accessToken);
      const admin = deps.config.env.DASHBOARD_ADMINS.includes(user.login.toLowerCase());
      const installations = await writableRepos(deps, token.accessToken);
      const repos = Object.keys(installations).sort();
      if (repos.length === 0 && !admin) {
        deps.log.info({ login: user.login }, "dashboard sign-in refused: no writable installed repo");
        return c.html(
          messagePage(
            "No access",
            null,
            `You are signed in to GitHub as @${user.login}, but you cannot write to any repository where Open SWE is installed, so the dashboard has nothing to show you.`,
          ),
          403,
        );
      }
      const profile = await deps.settings.getProfile(user.login);
      if (profile.prsAsMe && deps.secretBox) await new UserTokens(deps.redis, deps.prefix, deps.secretBox).save(user.login, token);
      const { id } = await deps.sessions.create({ login: user.login, userId: user.id, admin, repos, installations });
      await setSignedCookie(c, SESSION_COOKIE, id, deps.cookieSecret, { ...cookie, maxAge: deps.config.env.DASHBOARD_SESSION_HOURS * 3600 });
      deps.log.info({ login: user.login, admin, repos: repos.length }, "dashboard sign-in");
      return c.redirect(pending.next, 302);
    } catch (err) {
      if (!(err instanceof OpenSweError)) throw err;
      deps.log.warn({ err: err.message }, "dashboard sign-in failed");
      return c.html(messagePage("Sign-in failed", null, err instanceof OAuthError ? err.message : "GitHub's answer could not be read.", again), 502);
    }
  });

  app.post("/auth/logout", async (c) => {
    const current = await sessionOf(deps, c);
    if (!current) return c.redirect("/auth/sign-in", 303);
    const form = await c.req.parseBody();
    if (typeof form["_csrf"] !== "string" || !sameSecret(form["_csrf"], current.session.csrf)) return c.html(messagePage("Refused", current.session, "This form is missing its CSRF token."), 403);
    await deps.sessions.destroy(current.id);
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
    return c.redirect("/auth/sign-in", 303);
  });
}
