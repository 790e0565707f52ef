import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import nock from "nock";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { expect } from "vitest";
import { ROOT } from "../helpers/paths.js";

export const API = "https://api.github.com";
export const WEB = "https://github.com";
export const CLIENT_ID = "Iv1.dashboardtest";
export const CLIENT_SECRET = "dashboard-client-secret";
export const SCREENSHOTS = join(ROOT, "test-results", "dashboard");

/** Debian's chromium, headless; root needs --no-sandbox (the CI runs as root). */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: process.getuid?.() === 0 ? ["--no-sandbox"] : [] });
}

/**
 * A fresh browser context that reaches only the app on loopback. GitHub's authorize page is played by
 * the route: it checks the authorize URL and sends the browser back to the callback with a code, as
 * GitHub does after the user approves. Returns what the authorize URL carried.
 */
export async function newContext(browser: Browser): Promise<{ context: BrowserContext; authorize: URL[] }> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const authorize: URL[] = [];
  await context.route("**/*", (route) => (/^http:\/\/127\.0\.0\.1[:/]/.test(route.request().url()) ? route.continue() : route.abort()));
  await context.route(`${WEB}/login/oauth/authorize**`, async (route) => {
    const url = new URL(route.request().url());
    authorize.push(url);
    const back = new URL(url.searchParams.get("redirect_uri")!);
    back.search = new URLSearchParams({ code: `code-${authorize.length}`, state: url.searchParams.get("state") ?? "" }).toString();
    await route.fulfill({ status: 302, headers: { location: back.toString() } });
  });
  return { context, authorize };
}

export interface GitHubUserMock {
  login: string;
  id: number;
  /** Repos of installation 4242 and whether this user can push to them. */
  repos: { full_name: string; push: boolean }[];
  installationId?: number;
}

/**
 * nock for what GitHub answers one sign-in: the token exchange (the PKCE verifier must hash to the
 * challenge the authorize URL carried), the user, and the user's view of the installation's repos.
 */
export function mockSignIn(u: GitHubUserMock, challenge: () => string | undefined, token = `ghu_${u.login}_token`): nock.Scope[] {
  return [
    nock(WEB)
      .post("/login/oauth/access_token", (b: Record<string, string>) => {
        const verified =
          createHash("sha256")
            .update(b["code_verifier"] ?? "")
            .digest("base64url") === challenge();
        return b["client_id"] === CLIENT_ID && b["client_secret"] === CLIENT_SECRET && /^code-\d+$/.test(b["code"] ?? "") && verified;
      })
      .reply(200, { access_token: token, refresh_token: `ghr_${u.login}_refresh`, expires_in: 28800, refresh_token_expires_in: 15_811_200, token_type: "bearer" }),
    nock(API).get("/user").matchHeader("authorization", `token ${token}`).reply(200, { login: u.login, id: u.id }),
    nock(API)
      .get(`/user/installations/${u.installationId ?? 4242}/repositories`)
      .query({ per_page: "100", page: "1" })
      .matchHeader("authorization", `token ${token}`)
      .reply(200, { total_count: u.repos.length, repositories: u.repos.map((r) => ({ full_name: r.full_name, permissions: { push: r.push, pull: true, admin: false } })) }),
  ];
}

/** Signs in through the real pages: /app → sign-in page → GitHub (routed) → callback → `next`. */
export async function signIn(page: Page, base: string, authorize: URL[], u: GitHubUserMock, path = "/app"): Promise<void> {
  const mocks = mockSignIn(u, () => authorize.at(-1)?.searchParams.get("code_challenge") ?? undefined);
  await page.goto(`${base}${path}`);
  expect(new URL(page.url()).pathname).toBe("/auth/sign-in");
  await page.getByRole("link", { name: "Sign in with GitHub" }).click();
  await page.waitForURL((u) => u.pathname.startsWith("/app"));
  const sent = authorize.at(-1)!;
  expect(sent.searchParams.get("client_id")).toBe(CLIENT_ID);
  expect(sent.searchParams.get("state")).toMatch(/^[A-Za-z0-9_-]{32}$/);
  expect(sent.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(sent.searchParams.get("code_challenge_method")).toBe("S256");
  for (const m of mocks) expect(m.isDone()).toBe(true);
}

/** A signed-in page at one size and color scheme, collecting the CSP refusals its console reports. */
export async function signedInPage(
  browser: Browser,
  base: string,
  u: GitHubUserMock,
  view: { width: number; height: number; scheme: "light" | "dark" },
): Promise<{ context: BrowserContext; page: Page; cspErrors: string[] }> {
  const { context, authorize } = await newContext(browser);
  const page = await context.newPage();
  await page.setViewportSize({ width: view.width, height: view.height });
  await page.emulateMedia({ colorScheme: view.scheme });
  const cspErrors: string[] = [];
  page.on("console", (m) => void (/Content Security Policy/i.test(m.text()) && cspErrors.push(m.text())));
  await signIn(page, base, authorize, u);
  return { context, page, cspErrors };
}

/** The whole page, or (`at`: a selector) the window scrolled to that element. */
export async function screenshot(page: Page, name: string, at?: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  if (at)
    await page
      .locator(at)
      .first()
      .evaluate((e) => e.scrollIntoView({ block: "start" }));
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: !at });
}
