import { writeFileSync } from "node:fs";
import nock from "nock";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunRecords } from "../../src/store/run-records.js";
import { RunIndex } from "../../src/store/run-index.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { issueCommentPayload, mockInstallationToken, sendWebhook, mockRepoRole } from "../helpers/github-app.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { waitForJob, findJob } from "../helpers/jobs.js";
import { humanMessages } from "../helpers/approval-run.js";
import { jobId } from "../../src/queue/job-ids.js";
import { FollowUpQueue } from "../../src/threads/follow-ups.js";
import { API, CLIENT_ID, CLIENT_SECRET, launchBrowser, newContext, screenshot, signIn } from "./browser.js";
import { testSigner } from "../helpers/job-signer.js";

const PR_URL = "https://github.com/octo/hello/pull/21";
const dana = { login: "dana", id: 31, repos: [{ full_name: "octo/hello", push: true }] };

const prScript = [
  {
    text: "I'll add the guide.",
    tool_calls: [{ name: "write_file", args: { file_path: "/workspace/CONTRIBUTING.md", content: "# Contributing\n\nRun the tests first.\n" } }],
    usage: { input_tokens: 1200, output_tokens: 80 },
  },
  { tool_calls: [{ name: "execute", args: { command: "sleep 1; echo checked" } }], usage: { input_tokens: 1300, output_tokens: 20 } },
  { tool_calls: [{ name: "commit_and_push", args: { message: "Add CONTRIBUTING.md" } }], usage: { input_tokens: 1400, output_tokens: 30 } },
  { tool_calls: [{ name: "open_or_update_pull_request", args: { title: "Add CONTRIBUTING.md", body: "Adds a contributor guide." } }], usage: { input_tokens: 1500, output_tokens: 40 } },
  { tool_calls: [{ name: "confirming_completion", args: { summary: "Added CONTRIBUTING.md" } }], usage: { input_tokens: 1600, output_tokens: 20 } },
];
const followUpScript = [
  { tool_calls: [{ name: "execute", args: { command: "sleep 2; echo slept" } }] },
  { text: "Checked the retry logic too.", tool_calls: [{ name: "confirming_completion", args: { summary: "answered both" } }] },
];
const slowScript = [{ tool_calls: [{ name: "execute", args: { command: "echo started; sleep 60; echo never" } }] }, { text: "done" }];

/** What every run of a task on octo/hello asks GitHub before its first step. */
function mockRunStart(): void {
  nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
  nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
  nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main", full_name: "octo/hello" });
}

describe("dashboard in a real browser: a task started from the page streams live, ends with its PR; Stop cancels a run", () => {
  let app: E2eApp;
  let remote: ReturnType<typeof makeBareRemote>;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    remote = makeBareRemote("octo", "hello");
    app = await startE2eApp(remote.template, "dashboard", { GITHUB_CLIENT_ID: CLIENT_ID, GITHUB_CLIENT_SECRET: CLIENT_SECRET, JOB_ATTEMPTS: "3" });
    base = `http://127.0.0.1:${app.proc.port}`;
    await new SettingsStore(app.proc.redis, app.prefix).recordInstalled("octo/hello", { installationId: 4242 });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it("start a task: the run page follows it live and ends with the PR link", { timeout: 90_000 }, async () => {
    writeFileSync(app.replay, JSON.stringify(prScript));
    // The worker's two, and the web role's own for the dashboard's write-access check (which the worker's
    // check then finds cached).
    mockInstallationToken(4242, 3);
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    mockRunStart();
    nock(API).get("/repos/octo/hello/pulls").query(true).reply(200, []);
    const pr = nock(API)
      .post("/repos/octo/hello/pulls", (b) => b.title === "Add CONTRIBUTING.md" && b.draft === true && b.base === "main")
      .reply(201, { number: 21, html_url: PR_URL });

    const { context, authorize } = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, base, authorize, dana, "/app/tasks/new");
    await screenshot(page, "new-task");
    await page.getByLabel("Repository").selectOption("octo/hello");
    await page.getByLabel("Task").fill("Add a CONTRIBUTING.md");
    await page.getByRole("button", { name: "Start" }).click();
    await page.waitForURL(/\/app\/runs\/j__dashboard__/);
    const runId = decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1)!);
    let navigations = 0;
    page.on("framenavigated", (f) => void (f === page.mainFrame() && navigations++));
    const shownAtLoad = await page.locator("#conversation .msg").count();
    // The PR link arrives through the event stream, without a reload.
    await page.locator("#pr-link").waitFor({ timeout: 60_000 });
    expect(navigations).toBe(0);
    expect(await page.locator("#pr-link").getAttribute("href")).toBe(PR_URL);
    expect(await page.locator("#conversation .msg").count()).toBeGreaterThan(shownAtLoad + 4);
    await expect(page.locator("#conversation").textContent()).resolves.toMatch(/Tool call · write_file[\s\S]*Tool result · execute[\s\S]*checked/);
    await expect(page.locator("#run-status").textContent()).resolves.toBe("pr_opened");
    // Tokens so far followed the run through the stream too.
    await expect(page.locator("#run-usage").textContent()).resolves.toMatch(/^7000 tokens in \/ 190 out/);
    expect(await page.locator("#controls").isHidden()).toBe(true);
    await screenshot(page, "run");
    // Readable on a phone: nothing wider than the screen but the tables' own scroll boxes.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await screenshot(page, "run-phone");
    await page.setViewportSize({ width: 1100, height: 800 });

    const done = await waitForJob(app.proc.queues.queues.agent, runId, 30_000);
    expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "pr_opened", prUrl: PR_URL } });
    expect(pr.isDone()).toBe(true);
    expect(remote.git("branch", "--list", "open-swe/*")).toMatch(/open-swe\//);
    expect(await new RunIndex(app.proc.redis, app.prefix).get(runId)).toMatchObject({ source: "dashboard", requester: "dana", repo: "octo/hello", status: "pr_opened" });

    // The runs list shows it with its PR, model, tokens.
    await page.goto(`${base}/app/runs`);
    const row = page.locator("tbody tr").first();
    await expect(row.textContent()).resolves.toMatch(/Add a CONTRIBUTING\.md[\s\S]*octo\/hello[\s\S]*dashboard[\s\S]*replay[\s\S]*pr opened[\s\S]*7000 in \/ 190 out/);
    expect(await row.getByRole("link", { name: "PR" }).getAttribute("href")).toBe(PR_URL);
    await screenshot(page, "runs");
    await context.close();
  });

  it("a message sent from the run page reaches the running agent before its next model call", { timeout: 60_000 }, async () => {
    // Each run page asks GitHub whether the viewer may read the repository now (or finds it cached).
    mockRepoRole("dana", "write", { optional: true });
    writeFileSync(app.replay, JSON.stringify(followUpScript));
    mockRunStart();
    const { context, authorize } = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, base, authorize, dana, "/app/tasks/new");
    await page.getByLabel("Task").fill("Investigate the flaky test");
    await page.getByRole("button", { name: "Start" }).click();
    await page.waitForURL(/\/app\/runs\/j__dashboard__/);
    const runId = decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1)!);
    await page.getByText("Tool call · execute").waitFor({ timeout: 30_000 });
    await page.getByLabel("Message the running agent").fill("also check the retry logic");
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator("#run-status", { hasText: "completed" }).waitFor({ timeout: 30_000 });
    const text = (await page.locator("#conversation").textContent()) ?? "";
    const followUp = text.indexOf("Follow-up from @dana (dashboard): also check the retry logic");
    expect(followUp).toBeGreaterThan(text.indexOf("slept"));
    expect(text.indexOf("Checked the retry logic too.")).toBeGreaterThan(followUp);
    // One run: the message joined it instead of starting another.
    expect(await waitForJob(app.proc.queues.queues.agent, runId, 10_000)).toMatchObject({ returnvalue: { outcome: "completed" } });
    await context.close();
  });

  it("Stop cancels a running run through its AbortSignal; the run says it was stopped and is not retried", { timeout: 60_000 }, async () => {
    // Each run page asks GitHub whether the viewer may read the repository now (or finds it cached).
    mockRepoRole("dana", "write", { optional: true });
    writeFileSync(app.replay, JSON.stringify(slowScript));
    mockRunStart();
    const { context, authorize } = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, base, authorize, dana, "/app/tasks/new");
    await page.getByLabel("Task").fill("Investigate the slow build");
    await page.getByRole("button", { name: "Start" }).click();
    await page.waitForURL(/\/app\/runs\/j__dashboard__/);
    const runId = decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1)!);
    // Under way: the model asked for the long command.
    await page.getByText("Tool call · execute").waitFor({ timeout: 30_000 });
    await expect(page.locator("#run-status").textContent()).resolves.toBe("running");
    // A message past the thread's follow-up cap (20) is not sent, and the page says so.
    const { threadId } = (await new RunIndex(app.proc.redis, app.prefix).get(runId))!;
    const queue = new FollowUpQueue(app.proc.redis, app.prefix, 20, testSigner());
    for (let i = 0; i < 20; i++) await queue.push(threadId, { text: `m${i}`, author: "dana", source: "dashboard", at: i });
    const runPage = page.url();
    await page.getByLabel("Message the running agent").fill("one too many");
    const [sent] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/messages")), page.getByRole("button", { name: "Send" }).click()]);
    expect(sent.status()).toBe(429);
    await expect(page.locator("body").textContent()).resolves.toContain("already has 20 messages waiting for it, so I did not take this one");
    expect(await queue.length(threadId)).toBe(20);
    await page.goto(runPage);
    const started = Date.now();
    await page.getByRole("button", { name: "Stop" }).click();
    await page.locator("#run-status", { hasText: "stopped" }).waitFor({ timeout: 20_000 });
    await expect(page.locator("#run-end").textContent()).resolves.toMatch(/stopped by @dana/);
    // The page after Stop names the thread's sandbox.
    await expect(page.locator("dd", { hasText: /^local-/ }).count()).resolves.toBe(1);
    const done = await waitForJob(app.proc.queues.queues.agent, runId, 20_000);
    expect(done.returnvalue).toMatchObject({ outcome: "stopped" });
    // Cancelled, not waited out: the 60 s command did not finish.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(await new RunRecords(app.proc.redis, app.prefix).get(runId)).toMatchObject({ outcome: "stopped" });
    // One attempt of three: a stopped run is final, never retried.
    expect(done.state).toBe("completed");
    expect((await findJob(app.proc.queues.queues.agent, runId))?.attemptsMade).toBe(1);
    await context.close();
  });

  it("Stop on a run asked on GitHub ends the work: the issue is told, the pending follow-up is dropped, no continuation; a later comment starts fresh on the thread", { timeout: 90_000 }, async () => {
    writeFileSync(app.replay, JSON.stringify(slowScript));
    nock(API)
      .post("/app/installations/4343/access_tokens")
      .optionally()
      .times(6)
      .reply(201, { token: "ghs_test_installation_token", expires_at: new Date(Date.now() + 3600_000).toISOString() });
    nock(API).get("/repos/octo/hello/collaborators/erin/permission").reply(200, { permission: "write", role_name: "write" });
    // Stop asks dana's rights again once the first test's answer (cached 5 minutes) has expired — on a loaded machine it has.
    nock(API)
      .post("/app/installations/4242/access_tokens")
      .optionally()
      .reply(201, { token: "ghs_test_installation_token", expires_at: new Date(Date.now() + 3600_000).toISOString() });
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").optionally().reply(200, { permission: "write", role_name: "write" });
    mockRunStart();
    nock(API).post("/repos/octo/hello/issues/comments/7001/reactions").reply(201, {});
    let told = "";
    const toldScope = nock(API)
      .post("/repos/octo/hello/issues/70/comments", (b) => b.body.includes("Stopped from the dashboard before finishing."))
      .reply(201, (_u, b) => ((told = (b as { body: string }).body), { id: 1 }));
    const res = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 4343, number: 70, issueId: 7070, commentId: 7001, body: "@open-swe investigate the slow build", login: "erin", userId: 77 }),
    });
    const runId = deliveryJobId(res.deliveryId);
    // A GitHub run is listed from the moment its worker starts it.
    const index = new RunIndex(app.proc.redis, app.prefix);
    for (let i = 0; !(await index.get(runId)); i++) {
      if (i > 500) throw new Error("the GitHub run never started");
      await new Promise((r) => setTimeout(r, 20));
    }
    const threadId = (await index.get(runId))!.threadId;
    const { context, authorize } = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, base, authorize, dana, `/app/runs/${encodeURIComponent(runId)}`);
    await page.getByText("Tool call · execute").waitFor({ timeout: 30_000 });
    // A second comment while it runs becomes the thread's pending follow-up.
    const second = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 4343, number: 70, issueId: 7070, commentId: 7002, body: "@open-swe and rewrite the whole build in Rust", login: "erin", userId: 77 }),
    });
    expect((await waitForJob(app.proc.queues.queues.agent, deliveryJobId(second.deliveryId), 20_000)).returnvalue).toMatchObject({ outcome: "follow_up", queued: 1 });
    await page.getByRole("button", { name: "Stop" }).click();
    await page.locator("#run-status", { hasText: "stopped" }).waitFor({ timeout: 20_000 });
    expect((await waitForJob(app.proc.queues.queues.agent, runId, 20_000)).returnvalue).toMatchObject({ outcome: "stopped" });
    // Said on the run page and where the request came from.
    await expect(page.locator("#run-stopped").textContent()).resolves.toBe(
      "stopped by @dana. 1 message sent while it ran was dropped, and nothing continues it. A new message starts a new run on this thread.",
    );
    expect(toldScope.isDone()).toBe(true);
    expect(told).toContain("Stopped by @dana. 1 message sent while it ran was dropped, and nothing continues it.");
    // Nothing continues it: the follow-up is gone and no continuation run was queued.
    await new Promise((r) => setTimeout(r, 500));
    expect(await findJob(app.proc.queues.queues.agent, jobId("continue", threadId, runId))).toBeUndefined();
    expect(await new FollowUpQueue(app.proc.redis, app.prefix, 10, testSigner()).length(threadId)).toBe(0);
    expect((await index.list({ repos: new Set(["octo/hello"]) }, { size: 50 })).entries.filter((e) => e.threadId === threadId).map((e) => e.runId)).toEqual([runId]);

    // A later comment starts a new run on the same thread, told that the one before was stopped.
    writeFileSync(app.replay, JSON.stringify([{ text: "Looked again from the start.", tool_calls: [{ name: "confirming_completion", args: { summary: "looked at the cache" } }] }]));
    mockRunStart();
    nock(API).post("/repos/octo/hello/issues/comments/7003/reactions").reply(201, {});
    const fresh = nock(API).post("/repos/octo/hello/issues/70/comments").reply(201, { id: 2 });
    const third = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 4343, number: 70, issueId: 7070, commentId: 7003, body: "@open-swe just look at the cache", login: "erin", userId: 77 }),
    });
    const thirdRun = await waitForJob(app.proc.queues.queues.agent, deliveryJobId(third.deliveryId), 30_000);
    expect(thirdRun.failedReason).toBeUndefined();
    expect(thirdRun.returnvalue).toMatchObject({ outcome: "completed" });
    expect(fresh.isDone()).toBe(true);
    const humans = await humanMessages(app.prefix, threadId);
    expect(humans.at(-1)).toMatch(/^Note: the previous run on this thread was stopped by @dana before it finished\. 1 message sent to it was dropped unread\.[\s\S]*just look at the cache/);
    expect(humans.join("\n")).not.toContain("rewrite the whole build in Rust");
    await context.close();
  });
});
