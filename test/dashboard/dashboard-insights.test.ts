import { readFileSync, writeFileSync } from "node:fs";
import nock from "nock";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunInsights } from "../../src/store/run-insights.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { mockInstallationToken } from "../helpers/github-app.js";
import { waitForJob } from "../helpers/jobs.js";
import { API, CLIENT_ID, CLIENT_SECRET, launchBrowser, screenshot, signedInPage } from "./browser.js";
import { checkPage, VIEWS } from "./page-checks.js";

const dana = { login: "dana", id: 31, repos: [{ full_name: "octo/hello", push: true }] };
const DAY = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
describe("Insights in a real browser: a finished run is counted, charts with numbers on hover and keys, CSVs", () => {
  let app: E2eApp;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    // GitHub's answer on dana's rights, asked once by the first test, holds for the file (the 5-minute most).
    app = await startE2eApp(makeBareRemote("octo", "hello").template, "insights", { GITHUB_CLIENT_ID: CLIENT_ID, GITHUB_CLIENT_SECRET: CLIENT_SECRET, PERMISSION_CACHE_SECONDS: "300" });
    base = `http://127.0.0.1:${app.proc.port}`;
    await new SettingsStore(app.proc.redis, app.prefix).recordInstalled("octo/hello", { installationId: 4242 });
    // A month of earlier runs, CI fixes and review findings, as the worker and the reviewer record them.
    const insights = new RunInsights(app.proc.redis, app.prefix);
    const outcomes = ["completed", "pr_opened", "failed", "completed"];
    for (let i = 0; i < 40; i++) {
      await insights.recordRun({
        runId: `seed-${i}`,
        repo: "octo/hello",
        at: Date.now() - (1 + (i % 12)) * DAY,
        outcome: outcomes[i % 4]!,
        model: i % 3 === 0 ? "anthropic:claude-opus-4-5" : "anthropic:claude-sonnet-4-5",
        costUsd: 0.05 * (1 + (i % 5)),
        inputTokens: 20_000 + i * 500,
        outputTokens: 900 + i * 10,
        durationMs: 45_000 + i * 7_000,
        ...(i % 5 === 0 ? { autofix: i % 10 === 0 ? "pushed" : "no_change" } : {}),
      });
    }
    for (let d = 1; d <= 6; d++) {
      const multi = app.proc.redis.multi();
      insights.countFindings(multi, "octo/hello", Date.now() - d * DAY, { raised: d + 2, fixed: d % 3, dismissed: d % 2 });
      await multi.exec();
    }
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  const signedIn = (view: (typeof VIEWS)[number] = VIEWS[2]) => signedInPage(browser, base, dana, view);

  it("a task started from the dashboard is counted on today's row once it ends: outcome, tokens by model, duration", { timeout: 90_000 }, async () => {
    writeFileSync(
      app.replay,
      JSON.stringify([{ text: "Nothing to change.", tool_calls: [{ name: "confirming_completion", args: { summary: "nothing to change" } }], usage: { input_tokens: 1234, output_tokens: 56 } }]),
    );
    // The worker's two, and the web role's own for the write-access check (the Insights page finds it cached).
    mockInstallationToken(4242, 3);
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main", full_name: "octo/hello" });
    const { context, page } = await signedIn();
    await page.goto(`${base}/app/tasks/new`);
    await page.getByLabel("Repository").selectOption("octo/hello");
    await page.getByLabel("Task").fill("Check the README");
    await page.getByRole("button", { name: "Start" }).click();
    await page.waitForURL(/\/app\/runs\/j__dashboard__/);
    const runId = decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1)!);
    expect(await waitForJob(app.proc.queues.queues.agent, runId, 60_000)).toMatchObject({ state: "completed", returnvalue: { outcome: "completed" } });

    const csv = async (chart: string) => (await (await page.request.get(`${base}/app/insights/${chart}.csv?scope=repo:octo/hello&days=7`)).text()).trim().split("\r\n");
    const runs = await csv("runs");
    expect(runs[0]).toBe("day,completed (runs),failed (runs),pr_opened (runs)");
    expect(runs.at(-1)).toBe(`${today()},1,0,0`);
    const tokens = await csv("tokens");
    const replay = tokens[0]!.split(",").findIndex((h) => h.startsWith("replay"));
    expect(replay).toBeGreaterThan(0);
    expect(tokens.at(-1)!.split(",")[replay]).toBe(String(1234 + 56));
    expect(Number((await csv("duration")).at(-1)!.split(",")[1])).toBeGreaterThan(0);
    await context.close();
  });

  // In order after the run above: its row is today's, and GitHub's answer for dana is cached (≤ 5 minutes).
  for (const view of VIEWS) {
    const tag = `${view.width}-${view.scheme}`;
    it(`at ${view.width} px, ${view.scheme}: charts drawn, numbers on hover and by keyboard, CSV rows, fits, passes axe`, { timeout: 90_000 }, async () => {
      const { context, page, cspErrors } = await signedIn(view);
      await page.goto(`${base}/app/insights?scope=team:octo&days=30`);
      expect(await page.locator("h1").textContent()).toBe("Insights");
      // Every chart with data is drawn by uPlot (served by us), one canvas each.
      const charts = page.locator(".chart[data-chart]");
      expect(await charts.count()).toBe(6);
      await page.locator(".chart .uplot canvas").nth(5).waitFor();
      expect(await page.locator(".chart .uplot canvas").count()).toBe(6);

      // Hover: the legend shows the day and each series' number there.
      const runsChart = charts.first();
      const over = runsChart.locator(".u-over");
      const box = (await over.boundingBox())!;
      await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
      const legend = runsChart.locator(".u-legend");
      await expect.poll(() => legend.textContent()).toMatch(new RegExp(`${today()}[\\s\\S]*completed:?\\s*1 runs`));
      // Keyboard: Tab reaches the chart, the arrow keys walk the days.
      await page.locator("#i-days").focus();
      let reached = false;
      for (let i = 0; i < 10 && !reached; i++) {
        await page.keyboard.press("Tab");
        reached = await page.evaluate<boolean>("document.activeElement?.matches('.chart[data-chart]') ?? false");
      }
      expect(reached).toBe(true);
      await page.keyboard.press("ArrowLeft");
      const yesterday = new Date(Date.now() - DAY).toISOString().slice(0, 10);
      await expect.poll(() => page.locator(".chart:focus .u-legend").textContent()).toMatch(new RegExp(`${yesterday}[\\s\\S]*\\d+ runs`));

      // CSV: the runs chart's download, a row per day of the window.
      const download = page.waitForEvent("download");
      await page.locator('a[href^="/app/insights/runs.csv"]').click();
      const file = await download;
      expect(file.suggestedFilename()).toBe("runs.csv");
      const rows = readFileSync((await file.path())!, "utf8")
        .trim()
        .split("\r\n");
      expect(rows[0]).toBe("day,completed (runs),failed (runs),pr_opened (runs)");
      expect(rows).toHaveLength(31);
      expect(rows.at(-1)).toBe(`${today()},1,0,0`);
      const seeded = rows.slice(1, -1).map((r) =>
        r
          .split(",")
          .slice(1)
          .reduce((s, n) => s + Number(n), 0),
      );
      expect(seeded.reduce((a, b) => a + b, 0)).toBe(40);

      await page.mouse.move(0, 0);
      await screenshot(page, `insights-${tag}`);
      await checkPage(page, `insights ${tag}`, cspErrors);
      await context.close();
    });
  }
});
