import nock from "nock";
import { writeFileSync } from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { RunRecords } from "../../src/store/run-records.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { issueCommentPayload, mockInstallationToken, sendWebhook, mockRepoRole } from "../helpers/github-app.js";
import { waitForJob } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";
import { API, CLIENT_ID, CLIENT_SECRET, launchBrowser, screenshot, signedInPage, type GitHubUserMock } from "./browser.js";
import { checkPage, VIEWS } from "./page-checks.js";

const dana: GitHubUserMock = { login: "dana", id: 31, repos: [{ full_name: "octo/hello", push: true }] };
const erin: GitHubUserMock = { login: "erin", id: 32, repos: [{ full_name: "octo/other", push: true }] };
const NOTES = Array.from({ length: 150 }, (_, i) => `note ${i + 1}: the retry backoff reads the injected clock`).join("\n") + "\n";

/** The main agent writes a file, hands a check to the general-purpose subagent, then pushes and replies. */
const script = [
  { tool_calls: [{ name: "write_file", args: { file_path: "/workspace/NOTES.md", content: NOTES } }] },
  { tool_calls: [{ name: "task", args: { description: "Read NOTES.md and say how many notes it holds.", subagent_type: "general-purpose" } }] },
  // The subagent's own turns.
  { tool_calls: [{ name: "read_file", args: { file_path: "/workspace/NOTES.md" } }] },
  { text: "NOTES.md holds 150 notes." },
  { tool_calls: [{ name: "commit_and_push", args: { message: "Add NOTES.md" } }] },
  { tool_calls: [{ name: "github_comment", args: { body: "Added NOTES.md (150 notes)." } }] },
  { tool_calls: [{ name: "confirming_completion", args: { summary: "added" } }] },
];

describe("the run page shows a real run's subagent conversation and the diff it pushed", () => {
  let app: E2eApp;
  let base: string;
  let browser: Browser;
  let runId: string;

  beforeAll(async () => {
    const remote = makeBareRemote("octo", "hello");
    app = await startE2eApp(remote.template, "run-diff", { GITHUB_CLIENT_ID: CLIENT_ID, GITHUB_CLIENT_SECRET: CLIENT_SECRET });
    base = `http://127.0.0.1:${app.proc.port}`;
    writeFileSync(app.replay, JSON.stringify(script));
    mockInstallationToken(4242, 2);
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main", full_name: "octo/hello" });
    nock(API).post("/repos/octo/hello/issues/comments/901/reactions").reply(201, {});
    nock(API).post("/repos/octo/hello/issues/8/comments").reply(201, { id: 555 });
    nock(API).patch("/repos/octo/hello/issues/comments/555").reply(200, { id: 555 });
    const res = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 4242, number: 8, issueId: 8008, commentId: 901, body: "@open-swe write down the notes" }),
    });
    runId = deliveryJobId(res.deliveryId);
    const done = await waitForJob(app.proc.queues.queues.agent, runId, 90_000);
    expect(done.failedReason).toBeUndefined();
    expect((await new RunRecords(testRedis(), app.prefix).get(runId))?.pushedSha).toMatch(/^[0-9a-f]{40}$/);
    nock.cleanAll();
    await new SettingsStore(app.proc.redis, app.prefix).recordInstalled("octo/hello", { installationId: 4242 });
    await new SettingsStore(app.proc.redis, app.prefix).recordInstalled("octo/other", { installationId: 4242 });
    browser = await launchBrowser();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  const signedIn = (u: GitHubUserMock, view: { width: number; height: number; scheme: "light" | "dark" }) => signedInPage(browser, base, u, view);

  it("the subagent's messages and tool calls, collapsed with show all; the pushed diff from the mirror", { timeout: 120_000 }, async () => {
    // Each run page asks GitHub whether the viewer may read the repository now (or finds it cached).
    mockRepoRole("dana", "write", { optional: true });
    const { context, page } = await signedIn(dana, VIEWS[2]);
    await page.goto(`${base}/app/runs/${runId}`);
    // The subagent the run started, collapsed, with its own conversation.
    const sub = page.locator("#subagent-0");
    expect(await sub.evaluate((d) => (d as unknown as { open: boolean }).open)).toBe(false);
    await expect(sub.locator("> summary").textContent()).resolves.toMatch(/Subagent · general-purpose — Read NOTES\.md and say how many notes it holds\. \(4 messages\)/);
    await sub.locator("> summary").click();
    await sub.locator("#sa-0-m-1 .tool-call > summary").click();
    await expect(sub.locator("#sa-0-m-1 .tool-call pre").textContent()).resolves.toContain('"file_path": "/workspace/NOTES.md"');
    await sub.locator("#sa-0-m-2 > summary").click();
    await expect(sub.locator("#sa-0-m-2 pre").textContent()).resolves.toMatch(/more characters\)$/);
    const full = await page.request.get(`${base}${await sub.locator("#sa-0-m-2 .show-all").getAttribute("href")}`);
    // read_file answers 100 lines a page; the truncated view cuts far earlier.
    expect(await full.text()).toContain("note 100: the retry backoff reads the injected clock");
    await expect(sub.locator("#sa-0-m-3").textContent()).resolves.toContain("NOTES.md holds 150 notes.");
    // The diff it pushed, rendered by diff2html from the mirror.
    await expect(page.locator("#pushed-diff .d2h-file-name").first().textContent()).resolves.toContain("NOTES.md");
    expect(await page.locator("#pushed-diff .d2h-ins").count()).toBeGreaterThanOrEqual(150);
    await expect(page.locator("#pushed-diff").textContent()).resolves.toContain("note 150: the retry backoff reads the injected clock");
    await screenshot(page, "run-diff", "#pushed-diff");
    await screenshot(page, "run-subagents", "#subagents");
    await context.close();
  });

  for (const view of VIEWS) {
    const tag = `${view.width}-${view.scheme}`;
    it(`at ${view.width} px, ${view.scheme}: subagents and diff fit, pass axe, break no CSP rule`, { timeout: 90_000 }, async () => {
      mockRepoRole("dana", "write", { optional: true });
      const { context, page, cspErrors } = await signedIn(dana, view);
      await page.goto(`${base}/app/runs/${runId}`);
      await page.locator("#pushed-diff .d2h-file-name").first().waitFor();
      await page.locator("#subagent-0 > summary").click();
      for (const d of await page.locator("#subagent-0 details.msg").all()) await d.locator("> summary").click();
      await checkPage(page, `subagents and diff ${tag}`, cspErrors);
      if (view.width === 390 && view.scheme === "dark") await screenshot(page, "run-subagents-phone-dark", "#subagents");
      await context.close();
    });
  }

  it("someone who may not read the repository sees neither the subagents nor the diff", { timeout: 90_000 }, async () => {
    // Each run page asks GitHub whether the viewer may read the repository now (or finds it cached).
    mockRepoRole("dana", "write", { optional: true });
    const { context, page } = await signedIn(erin, VIEWS[2]);
    const res = await page.goto(`${base}/app/runs/${runId}`);
    expect(res?.status()).toBe(404);
    const body = await page.content();
    expect(body).not.toContain("NOTES.md");
    expect(body).not.toContain("subagent");
    const shown = await page.request.get(`${base}/app/runs/${runId}/subagents/0/messages/2`);
    expect(shown.status()).toBe(404);
    expect(await shown.text()).not.toContain("note 150");
    await context.close();
  });
});
