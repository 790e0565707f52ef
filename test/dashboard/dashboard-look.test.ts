import { randomUUID } from "node:crypto";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalStore } from "../../src/approvals/approval-store.js";
import type { RunRecord } from "../../src/shared/run-record.js";
import { RunIndex, type RunEntry } from "../../src/store/run-index.js";
import { RunRecords } from "../../src/store/run-records.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { mockRepoRole } from "../helpers/github-app.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { CLIENT_ID, CLIENT_SECRET, launchBrowser, newContext, screenshot, signIn } from "./browser.js";
import { checkPage, VIEWS } from "./page-checks.js";

const PR_URL = "https://github.com/octo/hello/pull/31";
const dana = { login: "dana", id: 31, repos: [{ full_name: "octo/hello", push: true }] };
const HOUR = 3_600_000;

const entry = (runId: string, status: RunEntry["status"], title: string, agoMs: number): RunEntry => ({
  runId,
  repo: "octo/hello",
  threadId: randomUUID(),
  trigger: "comment",
  source: "github",
  requester: "dana",
  title,
  status,
  queuedAt: Date.now() - agoMs,
  ...(status === "queued" ? {} : { startedAt: Date.now() - agoMs + 1000 }),
  ...(status === "queued" || status === "running" ? {} : { finishedAt: Date.now() - agoMs + 95_000 }),
});

const record = (e: RunEntry, over: Partial<RunRecord>): RunRecord => ({
  threadId: e.threadId,
  trigger: e.trigger,
  modelId: "anthropic:claude-sonnet-4-5",
  effort: "medium",
  replayed: false,
  startedAt: new Date(e.startedAt ?? e.queuedAt).toISOString(),
  durationMs: 94_000,
  modelCalls: 6,
  inputTokens: 41_200,
  outputTokens: 1_830,
  cachedTokens: 0,
  cacheWriteTokens: 0,
  costUsd: 0.1512,
  toolCounts: { execute: 3 },
  outcome: "completed",
  ...over,
});

describe("dashboard look and feel in a real browser: Primer, cards on phones, light and dark, axe, nothing leaves loopback", () => {
  let app: E2eApp;
  let browser: Browser;
  let base: string;
  const pr = entry(`j__github__${randomUUID()}`, "pr_opened", "Add a contributor guide with a rather long title that has to wrap on a phone", 3 * HOUR);
  const failed = entry(`j__github__${randomUUID()}`, "failed", "Fix the flaky retry test", 26 * HOUR);
  const queued = entry(`j__github__${randomUUID()}`, "queued", "Bump the Node version", 5 * 60_000);
  let approvalId = "";

  beforeAll(async () => {
    app = await startE2eApp(makeBareRemote("octo", "hello").template, "dashlook", { GITHUB_CLIENT_ID: CLIENT_ID, GITHUB_CLIENT_SECRET: CLIENT_SECRET, DASHBOARD_ADMINS: "dana" });
    base = `http://127.0.0.1:${app.proc.port}`;
    await new SettingsStore(app.proc.redis, app.prefix).recordInstalled("octo/hello", { installationId: 4242 });
    const index = new RunIndex(app.proc.redis, app.prefix);
    const records = new RunRecords(app.proc.redis, app.prefix);
    for (const e of [failed, pr, queued]) await index.put(e);
    await records.save(pr.runId, record(pr, { outcome: "pr_opened", prUrl: PR_URL }));
    await records.save(failed.runId, record(failed, { outcome: "failed", costUsd: 2.5, error: "the sandbox ran out of disk" }));
    // The record outlives the whole file (the app keeps one a day past its timeout): the keyboard case runs after the view
    // cases, over a minute later on a loaded machine, and must still find it pending.
    const approvals = new ApprovalStore(app.proc.redis, app.prefix, 60 * 60_000);
    approvalId = ApprovalStore.idFor(queued.runId);
    await approvals.create({
      id: approvalId,
      threadId: queued.threadId,
      job: {
        installationId: 4242,
        owner: "octo",
        repo: "hello",
        source: { kind: "github" },
        number: 5,
        isPullRequest: false,
        threadId: queued.threadId,
        trigger: "comment",
        requester: { login: "dana", id: 31 },
        text: "write the proof file",
        verdictAuthorized: false,
        deliveryId: "d-look",
      },
      calls: [{ name: "execute", preview: "rm -rf build && npm run build -- --mode production --out-dir /workspace/dist/very/long/path/that/must/wrap" }],
      requestedAt: Date.now() - 12 * 60_000,
      runId: queued.runId,
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  async function signedIn(view: (typeof VIEWS)[number]): Promise<{ context: BrowserContext; page: Page; requests: string[]; cspErrors: string[] }> {
    const { context, authorize } = await newContext(browser);
    const page = await context.newPage();
    await page.setViewportSize({ width: view.width, height: view.height });
    await page.emulateMedia({ colorScheme: view.scheme });
    const requests: string[] = [];
    const cspErrors: string[] = [];
    page.on("console", (m) => void (/Content Security Policy/i.test(m.text()) && cspErrors.push(m.text())));
    await signIn(page, base, authorize, dana);
    // From here on every request the pages make is recorded (sign-in itself visits GitHub's authorize page).
    page.on("request", (r) => void requests.push(r.url()));
    return { context, page, requests, cspErrors };
  }

  for (const view of VIEWS) {
    const tag = `${view.width}-${view.scheme}`;
    it(`at ${view.width} px, ${view.scheme}: every page is Primer-styled, fits, passes axe and asks only 127.0.0.1`, { timeout: 90_000 }, async () => {
      mockRepoRole("dana", "write", { optional: true });
      const { context, page, requests, cspErrors } = await signedIn(view);

      await page.goto(`${base}/app/runs`);
      // Primer is served by us and in effect: its color mode follows the browser, its buttons are drawn.
      expect(await page.locator("html").getAttribute("data-color-mode")).toBe("auto");
      const bg = await page.evaluate<string>("getComputedStyle(document.body).backgroundColor");
      expect(bg).toBe(view.scheme === "dark" ? "rgb(13, 17, 23)" : "rgb(255, 255, 255)");
      expect(await page.getByRole("button", { name: "Filter" }).getAttribute("class")).toBe("btn");
      expect(await page.evaluate<string>("getComputedStyle(document.querySelector('button.btn')).borderRadius")).toBe("6px");
      expect(await page.locator('link[rel="icon"]').getAttribute("href")).toBe("/app/static/favicon.svg");
      // Relative time, exact time on hover.
      const time = page.locator("time").first();
      expect(await time.textContent()).toMatch(/^(just now|\d+ (min|h|d).* ago)$/);
      expect(await time.getAttribute("title")).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
      // Status badges.
      expect(await page.locator("tbody tr", { hasText: "Fix the flaky" }).locator(".Label").textContent()).toBe("failed");
      // Stacked cards under 700 px, a table above; status, repo, cost and PR visible either way.
      const row = page.locator("tbody tr", { hasText: "Add a contributor guide" });
      expect(await page.evaluate<string>("getComputedStyle(document.querySelector('tbody tr')).display")).toBe(view.width < 700 ? "block" : "table-row");
      // The column heads only for screen readers on a phone (each card cell carries its own label).
      const headHeight = await page.evaluate<number>("document.querySelector('thead').getBoundingClientRect().height");
      if (view.width < 700) expect(headHeight).toBeLessThanOrEqual(1);
      else expect(headHeight).toBeGreaterThan(20);
      for (const label of ["Status", "Repository", "Cost", "PR"]) expect(await row.locator(`td[data-label="${label}"]`).isVisible(), label).toBe(true);
      expect(await row.locator('td[data-label="Cost"]').textContent()).toBe("$0.1512");
      expect(await row.getByRole("link", { name: "PR" }).getAttribute("href")).toBe(PR_URL);
      if (view.width < 700) {
        // A card is no wider than the screen.
        const box = (await row.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(view.width);
      }
      await screenshot(page, `runs-${tag}`);
      await checkPage(page, `runs ${tag}`, cspErrors);

      for (const [name, path] of [
        ["run", `/app/runs/${encodeURIComponent(pr.runId)}`],
        ["run-live", `/app/runs/${encodeURIComponent(queued.runId)}`],
        ["approvals", "/app/approvals"],
        ["new-task", "/app/tasks/new"],
        ["profile", "/app/profile"],
        ["admin", "/app/admin"],
      ] as const) {
        await page.goto(`${base}${path}`);
        await screenshot(page, `${name}-${tag}`);
        await checkPage(page, `${name} ${tag}`, cspErrors);
      }
      // Labels wrap their checkboxes.
      await page.goto(`${base}/app/profile`);
      expect(await page.locator('label:has(input[type="checkbox"][name="autoReview"])').count()).toBe(1);
      await page.getByLabel("Review my pull requests automatically").check();

      // bull-board's page without its Google Fonts stylesheet.
      await page.goto(`${base}/app/admin/queues`);
      await page.locator("#root *").first().waitFor();
      expect(await page.content()).not.toMatch(/fonts\.googleapis/);

      const away = requests.filter((u) => !u.startsWith(`${base}/`));
      expect(away).toEqual([]);
      expect(requests.some((u) => u.endsWith("/app/static/primer.css"))).toBe(true);
      await context.close();
    });
  }

  it("keyboard only: Tab reaches Stop, Approve and Start and Enter submits each", { timeout: 60_000 }, async () => {
    // Each run page asks GitHub whether the viewer may read the repository now (or finds it cached).
    mockRepoRole("dana", "write", { optional: true });
    const { context, page } = await signedIn(VIEWS[2]);
    /** Tabs on until the element named `name` (its text, or `#id`) has focus; fails after 60 presses. */
    const tabTo = async (name: string) => {
      for (let i = 0; i < 60; i++) {
        await page.keyboard.press("Tab");
        const at = await page.evaluate<{ text?: string; id?: string }>("({ text: document.activeElement?.textContent?.trim(), id: document.activeElement?.id })");
        if (at.text === name || `#${at.id}` === name) return;
      }
      throw new Error(`Tab never reached ${name}`);
    };
    // The first Tab lands on the skip link, which is then shown.
    await page.goto(`${base}/app/runs`);
    await page.keyboard.press("Tab");
    expect(await page.evaluate<string>("document.activeElement?.textContent")).toBe("Skip to content");
    expect(await page.getByRole("link", { name: "Skip to content" }).isVisible()).toBe(true);

    // Stop, Approve and Start are taken by the route here: stopping, deciding and starting are proven
    // end to end in their own tests (dashboard-runs, dashboard-approvals); this one is about the keyboard.
    await page.route(/\/app\/(runs\/[^/]+\/stop|approvals\/[^/]+\/approve|tasks)$/, (r) => r.fulfill({ status: 200, contentType: "text/plain", body: "taken" }));
    await page.goto(`${base}/app/runs/${encodeURIComponent(queued.runId)}`);
    await tabTo("Stop");
    const stop = page.waitForRequest((r) => r.method() === "POST" && r.url().endsWith(`/app/runs/${encodeURIComponent(queued.runId)}/stop`));
    await page.keyboard.press("Enter");
    expect((await stop).postData()).toMatch(/_csrf=/);
    // The form's navigation ends before the next page.goto (one still under way interrupts it on a loaded machine).
    await page.waitForURL((u) => u.pathname.endsWith("/stop"));

    await page.goto(`${base}/app/approvals`);
    await tabTo("Approve");
    const approve = page.waitForRequest((r) => r.method() === "POST" && r.url().endsWith(`/approvals/${approvalId}/approve`));
    await page.keyboard.press("Enter");
    expect((await approve).postData()).toMatch(/_csrf=/);
    await page.waitForURL((u) => u.pathname.endsWith("/approve"));

    await page.goto(`${base}/app/tasks/new`);
    await tabTo("#text");
    await page.keyboard.type("Add a README badge");
    await tabTo("Start");
    const start = page.waitForRequest((r) => r.method() === "POST" && r.url().endsWith("/app/tasks"));
    await page.keyboard.press("Enter");
    expect((await start).postData()).toMatch(/text=Add\+a\+README\+badge/);
    await context.close();
  });
});
