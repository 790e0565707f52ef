import nock from "nock";
import { mockInstallationToken } from "../helpers/github-app.js";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { reviewStores } from "../../src/review/review-stores.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";
import { CLIENT_ID, CLIENT_SECRET, launchBrowser, mockSignIn, newContext, screenshot, signIn, API } from "./browser.js";
import { hostQueueName, hostsKey } from "../../src/queue/host-routes.js";

const writer = {
  login: "dana",
  id: 31,
  repos: [
    { full_name: "octo/hello", push: true },
    { full_name: "octo/other", push: false },
  ],
};
const reader = { login: "eve", id: 66, repos: [{ full_name: "octo/hello", push: false }] };
const admin = { login: "ada", id: 7, repos: [{ full_name: "octo/hello", push: true }] };

describe("dashboard in a real browser: sign-in, who may enter, admin pages, CSRF", () => {
  let proc: RunningProcess;
  let browser: Browser;
  let base: string;
  let settings: SettingsStore;
  const prefix = uniquePrefix();
  beforeAll(async () => {
    proc = await startTestProcess("web", {
      QUEUE_REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      GITHUB_CLIENT_ID: CLIENT_ID,
      GITHUB_CLIENT_SECRET: CLIENT_SECRET,
      DASHBOARD_ADMINS: "ada",
      OPEN_SWE_SECRET_KEY: "c".repeat(64),
    });
    base = `http://127.0.0.1:${proc.port}`;
    settings = new SettingsStore(proc.redis, prefix);
    await settings.recordInstalled("octo/hello", { installationId: 4242 });
    await settings.recordInstalled("octo/other", { installationId: 4242 });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await proc?.stop();
  });

  it("signed out, /app redirects to sign-in; a writer signs in with state + PKCE and lands on the runs list", async () => {
    const res = await fetch(`${base}/app`, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/auth/sign-in?next=%2Fapp");
    const { context, authorize } = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, base, authorize, writer);
    expect(new URL(page.url()).pathname).toBe("/app/runs");
    await expect(page.getByRole("heading", { name: "Runs" }).isVisible()).resolves.toBe(true);
    // Only the repo dana can write is offered; not the one she can only read.
    const repos = await page.locator("#f-repo option").allTextContents();
    expect(repos).toEqual(["all", "octo/hello"]);
    const cookie = (await context.cookies()).find((c) => c.name === "osw_session");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });
    await screenshot(page, "runs-empty");
    await page.getByRole("link", { name: "Profile" }).click();
    await screenshot(page, "profile");
    // Logout is a form with its token; afterwards the cookie opens nothing.
    await page.getByRole("button", { name: /Sign out/ }).click();
    expect(new URL(page.url()).pathname).toBe("/auth/sign-in");
    await page.goto(`${base}/app/runs`);
    expect(new URL(page.url()).pathname).toBe("/auth/sign-in");
    await context.close();
  });

  it('turning on "open PRs as me" authorises once more and stores the user\'s tokens sealed', async () => {
    const { context, authorize } = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, base, authorize, writer, "/app/profile");
    const mocks = mockSignIn(writer, () => authorize.at(-1)?.searchParams.get("code_challenge") ?? undefined, "ghu_dana_second_token");
    await page.getByLabel("Open PRs as me").check();
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForURL((u) => u.pathname === "/app/profile" && u.search === "?saved=1");
    for (const m of mocks) expect(m.isDone()).toBe(true);
    await expect(page.getByText("Your GitHub token is stored encrypted").isVisible()).resolves.toBe(true);
    expect((await settings.getProfile("dana")).prsAsMe).toBe(true);
    const keys = await proc.redis.keys(`${prefix}:*`);
    const bytes = (await Promise.all(keys.map((k) => proc.redis.dumpBuffer(k)))).map((b) => b?.toString("latin1") ?? "").join("");
    expect(bytes).toContain("v1.");
    expect(bytes).not.toContain("ghu_dana");
    expect(bytes).not.toContain("ghr_dana");
    await context.close();
  });

  it("a user who cannot write to any installed repo is refused", async () => {
    const { context, authorize } = await newContext(browser);
    const page = await context.newPage();
    const mocks = mockSignIn(reader, () => authorize.at(-1)?.searchParams.get("code_challenge") ?? undefined);
    await page.goto(`${base}/auth/sign-in`);
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().includes("/auth/callback")), page.getByRole("link", { name: "Sign in with GitHub" }).click()]);
    expect(response.status()).toBe(403);
    await expect(page.getByRole("alert").textContent()).resolves.toMatch(/signed in to GitHub as @eve, but you cannot write/);
    expect((await context.cookies()).some((c) => c.name === "osw_session")).toBe(false);
    for (const m of mocks) expect(m.isDone()).toBe(true);
    await context.close();
  });

  it("a callback whose state this browser did not start is refused", async () => {
    const { context } = await newContext(browser);
    const page = await context.newPage();
    const res = await page.goto(`${base}/auth/callback?code=stolen&state=${"a".repeat(32)}`);
    expect(res?.status()).toBe(400);
    await expect(page.getByRole("alert").textContent()).resolves.toMatch(/state mismatch/);
    await context.close();
  });

  it("an admin enables a repo from the admin page; a non-admin gets 403 for the page and the post", async () => {
    const { context, authorize } = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, base, authorize, admin, "/app/admin");
    expect(new URL(page.url()).pathname).toBe("/app/admin");
    // Each change to a repository asks GitHub whether ada can write to it now (then cached).
    mockInstallationToken(4242);
    nock(API).get("/repos/octo/hello/collaborators/ada/permission").reply(200, { permission: "admin", role_name: "admin" });
    await page.getByRole("button", { name: "Enable octo/hello" }).click();
    await expect(page.getByRole("status").textContent()).resolves.toBe("octo/hello enabled.");
    expect(await settings.listEnabledRepos()).toEqual(["octo/hello"]);
    // Identity mapping, and a review style edited and re-learned.
    await page.getByLabel("Source user").fill("slack:U0123ABC");
    await page.getByLabel("GitHub login").fill("Dana");
    await page.getByRole("button", { name: "Map" }).click();
    await expect(page.getByRole("status").textContent()).resolves.toBe("Mapping saved.");
    expect(await settings.getIdentity("slack:U0123ABC")).toBe("dana");
    await screenshot(page, "admin");
    await page
      .getByRole("row", { name: /octo\/hello/ })
      .getByRole("link", { name: "View / edit" })
      .click();
    await page.getByLabel(/Style prompt/).fill("Prefer small functions.");
    await page.getByRole("button", { name: "Save style" }).click();
    await expect(page.getByRole("status").textContent()).resolves.toBe("Saved.");
    expect((await reviewStores(proc.redis, prefix).styles.get({ owner: "octo", repo: "hello" }))?.prompt).toBe("Prefer small functions.");
    await page.getByRole("button", { name: "Re-learn from past reviews" }).click();
    await expect(page.getByRole("status").textContent()).resolves.toMatch(/Re-learning queued/);
    const analyze = await proc.queues.queues.analyze.getJobs(["waiting", "prioritized", "delayed"]);
    expect(analyze.map((j) => j.data)).toEqual([
      { installationId: 4242, owner: "octo", repo: "hello", mode: "bootstrap", provenance: expect.objectContaining({ via: "dashboard", principal: { login: "ada", id: 7 } }) },
    ]);
    await screenshot(page, "review-style");
    // A host that registered after the web process started: its own queues are shown too.
    await proc.redis.sadd(hostsKey(prefix), "h-late1");
    await page.goto(`${base}/app/admin/queues`);
    await page.getByText("agent", { exact: false }).first().waitFor();
    const shownQueues = await page.evaluate(async () => ((await (await fetch("/app/admin/queues/api/queues")).json()) as { queues: { name: string }[] }).queues.map((q) => q.name));
    expect(shownQueues).toEqual(expect.arrayContaining(["agent", hostQueueName("agent", "h-late1"), hostQueueName("cleanup", "h-late1")]));
    await screenshot(page, "admin-queues");
    await context.close();

    const other = await newContext(browser);
    const p2 = await other.context.newPage();
    await signIn(p2, base, other.authorize, writer);
    for (const path of ["/app/admin", "/app/admin/queues"]) {
      const res = await p2.goto(`${base}${path}`);
      expect(res?.status(), path).toBe(403);
    }
    // dana's own valid CSRF token does not make her an admin.
    await p2.goto(`${base}/app/profile`);
    const token = await p2.locator('input[name="_csrf"]').first().inputValue();
    const status = await p2.evaluate(async (t) => (await fetch("/app/admin/repos", { method: "POST", body: new URLSearchParams({ _csrf: t, repo: "octo/other", action: "enable" }) })).status, token);
    expect(status).toBe(403);
    expect(await settings.listEnabledRepos()).toEqual(["octo/hello"]);
    await other.context.close();

    // No session at all: the admin post is 401, bull-board's API too.
    expect((await fetch(`${base}/app/admin/repos`, { method: "POST", body: new URLSearchParams({ repo: "octo/other", action: "enable" }) })).status).toBe(401);
    expect((await fetch(`${base}/app/admin/queues/api/queues`)).status).toBe(401);
  }, 60_000); // three browser sessions and two admin pages: 30 s was passed in a full run on a slow 2-core VM

  it("form posts without the CSRF token (or with another session's) are refused", async () => {
    const { context, authorize } = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, base, authorize, admin, "/app/profile");
    const post = (path: string, fields: Record<string, string>) =>
      page.evaluate(async ([p, f]) => (await fetch(p!, { method: "POST", body: new URLSearchParams(f as Record<string, string>) })).status, [path, fields] as const);
    expect(await post("/app/admin/repos", { repo: "octo/other", action: "enable" })).toBe(403);
    expect(await post("/app/admin/repos", { _csrf: "x".repeat(43), repo: "octo/other", action: "enable" })).toBe(403);
    expect(await post("/app/profile", { autoFixCi: "on" })).toBe(403);
    expect(await post("/auth/logout", {})).toBe(403);
    expect(await settings.listEnabledRepos()).toEqual(["octo/hello"]);
    expect((await settings.getProfile("ada")).autoFixCi).toBe(false);
    // With the token the same profile post works.
    const token = await page.locator('input[name="_csrf"]').first().inputValue();
    expect(await post("/app/profile", { _csrf: token, autoFixCi: "on", autoReview: "on" })).toBe(200);
    expect(await settings.getProfile("ada")).toMatchObject({ autoFixCi: true, autoReview: true, prsAsMe: false });
    await context.close();
  });
});
