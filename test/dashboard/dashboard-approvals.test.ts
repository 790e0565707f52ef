import nock from "nock";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalStore } from "../../src/approvals/approval-store.js";
import { jobId } from "../../src/queue/job-ids.js";
import { RunIndex } from "../../src/store/run-index.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { pausedRun, runStartMocks, SECRET, toolMessages } from "../helpers/approval-run.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { mockInstallationToken } from "../helpers/github-app.js";
import { waitForJob } from "../helpers/jobs.js";
import { API, CLIENT_ID, CLIENT_SECRET, launchBrowser, newContext, screenshot, signIn } from "./browser.js";

const erin = { login: "erin", id: 44, repos: [{ full_name: "octo/hello", push: true }] };
// Reads octo/hello, writes only octo/other (with no writable repo at all, sign-in itself is refused).
const zed = {
  login: "zed",
  id: 45,
  repos: [
    { full_name: "octo/hello", push: false },
    { full_name: "octo/other", push: true },
  ],
};

const csrfOf = (page: Page) => page.locator('input[name="_csrf"]').first().getAttribute("value");

describe("dashboard approvals in a real browser: a writer decides a paused run from the page", () => {
  let app: E2eApp;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    app = await startE2eApp(makeBareRemote("octo", "hello").template, "dashapproval", { GITHUB_CLIENT_ID: CLIENT_ID, GITHUB_CLIENT_SECRET: CLIENT_SECRET });
    base = `http://127.0.0.1:${app.proc.port}`;
    await new SettingsStore(app.proc.redis, app.prefix).recordInstalled("octo/hello", { installationId: 4242 });
    await new SettingsStore(app.proc.redis, app.prefix).recordInstalled("octo/other", { installationId: 4242 });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it("a non-writer sees nothing and is refused; a CSRF-less post is refused; a writer's Approve resumes the run, Deny passes its reason", { timeout: 240_000 }, async () => {
    // Each run page asks GitHub whether the viewer may read the repository now (or finds it cached).
    mockInstallationToken(4242, 2);
    // erin's reading the paused run finds GitHub's read answer cached (her approve asks GitHub itself, below).
    await app.proc.redis.set(`${app.prefix}:perm-read:octo/hello:erin`, "1", "EX", 300);
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    const { id } = await pausedRun(app, { installationId: 4242, number: 5, issueId: 5005, commentId: 101, reply: "Wrote proof.txt.", requestCommentId: 900 });
    const store = new ApprovalStore(app.proc.redis, app.prefix, 60_000);
    const pausedRunId = (await store.get(id))?.runId;
    expect(pausedRunId).toBeTruthy();

    // zed can read the repo but not push: the approval is not listed, and posting its form anyway is refused.
    {
      const { context, authorize } = await newContext(browser);
      const page = await context.newPage();
      await signIn(page, base, authorize, zed, "/app/approvals");
      await expect(page.locator("main").textContent()).resolves.toMatch(/No run is waiting for approval/);
      expect(await page.locator(`#approval-${id}`).count()).toBe(0);
      const res = await page.request.post(`${base}/app/approvals/${id}/approve`, { form: { _csrf: (await csrfOf(page))! } });
      expect(res.status()).toBe(404);
      expect(await res.text()).toContain(`no approval request ${id}`);
      await context.close();
    }
    expect(await store.resolution(id)).toBeNull();

    const { context, authorize } = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, base, authorize, erin, `/app/runs/${encodeURIComponent(pausedRunId!)}`);
    // The paused run's page says what it waits on and links there.
    await expect(page.locator("#run-approval").textContent()).resolves.toMatch(new RegExp(`Waiting for approval: decide ${id}`));
    await page.locator("#run-approval a").click();
    await page.waitForURL((u) => u.pathname === "/app/approvals");
    const card = page.locator(`#approval-${id}`);
    await expect(card.textContent()).resolves.toMatch(/octo\/hello · execute[\s\S]*@dana[\s\S]*just now[\s\S]*GH_TOKEN=\*\*\*/);
    expect(await page.locator("main").textContent()).not.toContain(SECRET);
    await screenshot(page, "approvals");

    // A post without the session's CSRF token changes nothing.
    const forged = await page.request.post(`${base}/app/approvals/${id}/approve`, { form: { reason: "" } });
    expect(forged.status()).toBe(403);
    expect(await store.resolution(id)).toBeNull();

    // erin (a writer, not the requester) approves: the dashboard asks GitHub now (the web role's own
    // installation token), then the resume agent job is queued and completes.
    mockInstallationToken(4242);
    nock(API).get("/repos/octo/hello/collaborators/erin/permission").reply(200, { permission: "write", role_name: "write" });
    runStartMocks(101);
    const done = nock(API).post("/repos/octo/hello/issues/5/comments", { body: "Wrote proof.txt." }).reply(201, { id: 901 });
    nock(API).patch("/repos/octo/hello/issues/comments/901").reply(200, { id: 901 });
    await card.getByRole("button", { name: "Approve" }).click();
    await expect(page.locator("main").textContent()).resolves.toMatch(new RegExp(`Approved ${id}: the run continues`));
    expect(await store.resolution(id)).toMatchObject({ decision: "approve", by: "erin", how: "person" });
    const resumed = await waitForJob(app.proc.queues.queues.agent, jobId("approval", id), 60_000);
    expect(resumed.failedReason).toBeUndefined();
    expect(resumed.returnvalue).toMatchObject({ outcome: "completed" });
    expect(done.isDone()).toBe(true);
    // The timeout job was cancelled with the decision.
    expect(await app.proc.queues.queues.command.getJob(jobId("approval-timeout", id))).toBeUndefined();

    // Approved means resolved: the paused run's page and row say who decided and when, and link the resumed run.
    const resumedId = jobId("approval", id);
    expect(await new RunIndex(app.proc.redis, app.prefix).get(pausedRunId!)).toMatchObject({ status: "approval_resolved", approval: { id, decision: "approve", by: "erin", resumedRunId: resumedId } });
    expect(await new RunIndex(app.proc.redis, app.prefix).get(resumedId)).toMatchObject({ resumes: pausedRunId, trigger: "approval", status: "completed" });
    await page.goto(`${base}/app/runs/${encodeURIComponent(pausedRunId!)}`);
    await expect(page.locator("#run-status").textContent()).resolves.toBe("approval resolved");
    await expect(page.locator("#run-approval").textContent()).resolves.toMatch(/^Approved by @erin at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC; the run resumed\.$/);
    await page.locator("#resumed-run").click();
    await page.waitForURL((u) => decodeURIComponent(u.pathname) === `/app/runs/${resumedId}`);
    await expect(page.locator("#run-resumes").textContent()).resolves.toBe("Resumes the run that paused for approval.");
    await page.goto(`${base}/app/runs`);
    const pausedRow = page.locator("tbody tr", { has: page.locator(`a[href="/app/runs/${encodeURIComponent(pausedRunId!)}"]`) });
    await expect(pausedRow.textContent()).resolves.toMatch(/approval resolved\s*Approved by @erin · resumed run/);
    expect(await pausedRow.getByRole("link", { name: "resumed run" }).getAttribute("href")).toBe(`/app/runs/${encodeURIComponent(resumedId)}`);

    // Decided: no longer listed, and a second decision says who decided.
    await page.goto(`${base}/app/approvals`);
    expect(await page.locator(`#approval-${id}`).count()).toBe(0);
    const again = await page.request.post(`${base}/app/approvals/${id}/deny`, { form: { _csrf: (await csrfOf(page))! } });
    expect(again.status()).toBe(409);
    expect(await again.text()).toContain(`${id} was already approved by @erin`);

    // Deny with a reason: the model reads who denied it and why, and the call never runs.
    nock(API)
      .post("/app/installations/4242/access_tokens")
      .optionally()
      .times(2)
      .reply(201, { token: "ghs_test_installation_token", expires_at: new Date(Date.now() + 3600_000).toISOString() });
    const second = await pausedRun(app, { installationId: 4242, number: 6, issueId: 6006, commentId: 111, reply: "Skipped it.", requestCommentId: 910 });
    runStartMocks(111);
    nock(API).post("/repos/octo/hello/issues/6/comments", { body: "Skipped it." }).reply(201, { id: 911 });
    nock(API).patch("/repos/octo/hello/issues/comments/911").reply(200, { id: 911 });
    await page.goto(`${base}/app/approvals`);
    const secondCard = page.locator(`#approval-${second.id}`);
    await secondCard.getByLabel("Reason (optional)").fill("not on a Friday");
    await secondCard.getByRole("button", { name: "Deny" }).click();
    await expect(page.locator("main").textContent()).resolves.toMatch(new RegExp(`Denied ${second.id}`));
    expect((await waitForJob(app.proc.queues.queues.agent, jobId("approval", second.id), 60_000)).returnvalue).toMatchObject({ outcome: "completed" });
    expect(await toolMessages(app.prefix, second.thread, "execute")).toEqual(["Denied by @erin: not on a Friday. Continue without this call."]);
    const secondPaused = (await store.get(second.id))!.runId!;
    expect(await new RunIndex(app.proc.redis, app.prefix).get(secondPaused)).toMatchObject({ status: "approval_resolved", approval: { decision: "reject", by: "erin" } });

    const unknown = await page.request.post(`${base}/app/approvals/ffffffff/deny`, { form: { _csrf: (await csrfOf(page))! } });
    expect(unknown.status()).toBe(404);
    await context.close();
  });
});
