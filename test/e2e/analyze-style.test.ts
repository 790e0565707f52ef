import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import type { Finding } from "../../src/review/findings.js";
import { FindingsStore } from "../../src/review/findings-store.js";
import { StyleStore } from "../../src/review/style/style-store.js";
import { analyzerSkill, analyzeSchedulerId, scheduleNightlyAnalyzer } from "../../src/runs/analyze-style.js";
import { enqueueAnalyze } from "../../src/review/style/analyze-enqueue.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { mockInstallationToken } from "../helpers/github-app.js";
import { waitForJob } from "../helpers/jobs.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

const API = "https://api.github.com";
const BOOTSTRAP_STYLE = "Focus: error paths in src/api/** must return typed errors. Let pass: naming nits. How to write comments: one sentence, then the fix.";
const CONTINUAL_STYLE = "Focus: error paths in src/api/**. Let pass: unused-import findings (the team dismisses them). How to write comments: one sentence, then the fix.";

function mockRepoConfig(): void {
  nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
  nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
}

const finding = (id: string, over: Partial<Finding>): Finding => ({
  id,
  fingerprint: `fp-${id}`,
  path: "src/api/users.ts",
  line: 10,
  side: "RIGHT",
  headSha: "h1",
  severity: "medium",
  title: id,
  body: "b",
  rule: "unused-import",
  status: "open",
  ...over,
});

describe("e2e: review-style analyzer — bootstrap from past reviews, nightly continual from our findings", () => {
  let proc: RunningProcess;
  let prefix: string;
  let replay: string;
  beforeAll(async () => {
    prefix = uniquePrefix();
    const dataDir = mkdtempSync(join(tmpdir(), "open-swe-analyze-"));
    replay = join(dataDir, "analyze.json");
    // Start-up refuses a replay model whose file is missing; each test writes its own script before a run.
    writeFileSync(replay, JSON.stringify([{ text: "no script written for this run yet" }]));
    proc = await startTestProcess("all", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, DATA_DIR: dataDir, JOB_ATTEMPTS: "1", OPEN_SWE_MODEL: `replay:${replay}` });
  });
  afterAll(async () => proc?.stop());

  it("the skills are prompts/ files rendered for the repo", () => {
    expect(analyzerSkill("bootstrap", "octo/hello")).toMatch(/^---\nname: bootstrap-review-style[\s\S]*octo\/hello[\s\S]*read_review_samples[\s\S]*save_review_style_prompt/);
    expect(analyzerSkill("continual", "octo/hello")).toMatch(/read_finding_outcomes[\s\S]*save_review_style_prompt/);
  });

  it("bootstrap samples human review comments, saves a style, and registers the nightly continual scheduler; continual refines it", async () => {
    const redis = testRedis();
    const settings = new SettingsStore(redis, prefix);
    await settings.recordInstalled("octo/hello", { installationId: 6001 });
    writeFileSync(
      replay,
      JSON.stringify([
        {
          tool_calls: [
            { name: "read_current_style", args: {} },
            { name: "read_review_samples", args: {} },
          ],
        },
        { tool_calls: [{ name: "save_review_style_prompt", args: { prompt: BOOTSTRAP_STYLE } }] },
        { text: "Saved." },
      ]),
    );
    mockInstallationToken(6001);
    mockRepoConfig();
    nock(API)
      .get("/repos/octo/hello/pulls")
      .query({ state: "closed", sort: "updated", direction: "desc", per_page: "30" })
      .reply(200, [{ number: 3 }, { number: 2 }]);
    nock(API)
      .get("/repos/octo/hello/pulls/3/comments")
      .query(true)
      .reply(200, [
        { user: { login: "maria", type: "User" }, body: "This swallows the error; return a typed ApiError instead.", path: "src/api/users.ts", diff_hunk: "@@ -1 +1 @@\n+catch {}" },
        { user: { login: "ci-bot[bot]", type: "Bot" }, body: "Coverage dropped by 0.2% on this file.", path: "src/api/users.ts" },
      ]);
    nock(API)
      .get("/repos/octo/hello/pulls/2/comments")
      .query(true)
      .reply(200, [{ user: { login: "lee", type: "User" }, body: "nit: LGTM", path: "a.ts" }]);

    const id = await enqueueAnalyze({ settings, queues: proc.queues, repo: "Octo/Hello", mode: "bootstrap", by: { via: "operator", principal: null } });
    const done = await waitForJob(proc.queues.queues.analyze, id, 30_000);
    expect(done.failedReason).toBeUndefined();
    // One human sample survives: the bot and the trivial comment are skipped.
    expect(done.returnvalue).toMatchObject({ outcome: "saved", mode: "bootstrap", evidence: 1, version: 1, scheduler: "analyze__octo__hello" });
    const styles = new StyleStore(redis, `${prefix}:`);
    expect(await styles.get({ owner: "octo", repo: "hello" })).toMatchObject({ prompt: BOOTSTRAP_STYLE, mode: "bootstrap", version: 1 });

    const scheduler = await proc.queues.queues.analyze.getJobScheduler(analyzeSchedulerId("octo", "hello"));
    expect(scheduler).toMatchObject({ pattern: "0 3 * * *", name: "continual", template: { data: { installationId: 6001, owner: "octo", repo: "hello", mode: "continual" } } });
    expect(new Date(scheduler!.next!).getUTCHours()).toBe(3);

    // The nightly run, as the scheduler would enqueue it: outcomes of our findings, with a thumbs-down looked up.
    const findings = new FindingsStore(redis, `${prefix}:`);
    const pr = { owner: "octo", repo: "hello", pull_number: 12 };
    await findings.replaceAll(pr, [
      finding("f-fixed", { status: "resolved", closedBy: "fix", githubCommentId: 11, rule: "error-swallowed" }),
      finding("f-dismissed", { status: "dismissed", closedBy: "human" }),
      finding("f-thumbs", { githubCommentId: 12 }),
    ]);
    writeFileSync(
      replay,
      JSON.stringify([
        {
          tool_calls: [
            { name: "read_current_style", args: {} },
            { name: "read_finding_outcomes", args: {} },
          ],
        },
        { tool_calls: [{ name: "save_review_style_prompt", args: { prompt: CONTINUAL_STYLE } }] },
        { text: "Refined." },
      ]),
    );
    // The app was reinstalled since: the nightly run follows the current installation.
    await settings.recordInstalled("octo/hello", { installationId: 6002 });
    mockInstallationToken(6002);
    mockRepoConfig();
    nock(API).get("/repos/octo/hello/pulls/comments/11/reactions").query({ content: "-1", per_page: "1" }).reply(200, []);
    nock(API)
      .get("/repos/octo/hello/pulls/comments/12/reactions")
      .query({ content: "-1", per_page: "1" })
      .reply(200, [{ id: 1, content: "-1" }]);
    const job = await proc.queues.add("analyze", scheduler!.template!.data as never, "nightly-now", { via: "github-webhook" });
    const nightly = await waitForJob(proc.queues.queues.analyze, job, 30_000);
    expect(nightly.failedReason).toBeUndefined();
    expect(nightly.returnvalue).toMatchObject({ outcome: "saved", mode: "continual", evidence: 3, version: 2 });
    expect(nightly.returnvalue).not.toHaveProperty("scheduler");
    expect(await styles.get({ owner: "octo", repo: "hello" })).toMatchObject({ prompt: CONTINUAL_STYLE, mode: "continual", version: 2 });
  });

  it("a nightly run for a repo the app left removes its scheduler", async () => {
    const settings = new SettingsStore(testRedis(), prefix);
    await settings.recordInstalled("octo/gone", { installationId: 6003 });
    const id = await scheduleNightlyAnalyzer(proc.queues, { installationId: 6003, owner: "Octo", repo: "Gone" });
    expect(await proc.queues.queues.analyze.getJobScheduler(id)).toBeTruthy();
    await settings.removeInstalled("octo/gone");
    const job = await proc.queues.add("analyze", { installationId: 6003, owner: "octo", repo: "gone", mode: "continual" }, "nightly-gone", { via: "github-webhook" });
    expect(await waitForJob(proc.queues.queues.analyze, job)).toMatchObject({ state: "completed", returnvalue: { outcome: "not_installed" } });
    expect(await proc.queues.queues.analyze.getJobScheduler(id)).toBeFalsy();
  });

  it("refuses a repository the app is not installed on", async () => {
    await expect(
      enqueueAnalyze({ settings: new SettingsStore(testRedis(), prefix), queues: proc.queues, repo: "octo/elsewhere", mode: "bootstrap", by: { via: "operator", principal: null } }),
    ).rejects.toThrow(/not installed on octo\/elsewhere/);
  });
});
