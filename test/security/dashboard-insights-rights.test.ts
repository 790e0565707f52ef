import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { RunInsights } from "../../src/store/run-insights.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { CLIENT_ID, CLIENT_SECRET, mockSignIn } from "../dashboard/browser.js";
import { cookieHeader, keep } from "../helpers/cookie-jar.js";
import { mockInstallationToken } from "../helpers/github-app.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

const API = "https://api.github.com";
const CHARTS = ["runs", "cost", "tokens", "duration", "autofix", "findings"];
const permission = (repo: string, p: string) => nock(API).get(`/repos/${repo}/collaborators/dana/permission`).reply(200, { permission: p, role_name: p });

describe("security: Insights sums only repositories the viewer may read now, page and CSV alike", () => {
  let proc: RunningProcess;
  let base: string;
  const prefix = uniquePrefix();
  beforeAll(async () => {
    proc = await startTestProcess("web", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, GITHUB_CLIENT_ID: CLIENT_ID, GITHUB_CLIENT_SECRET: CLIENT_SECRET });
    base = `http://127.0.0.1:${proc.port}`;
    const settings = new SettingsStore(proc.redis, prefix);
    for (const repo of ["octo/hello", "octo/secret"]) await settings.recordInstalled(repo, { installationId: 4242 });
    await settings.recordInstalled("acme/other", { installationId: 4242 });
    const insights = new RunInsights(proc.redis, prefix);
    const now = Date.now();
    await insights.recordRun({ runId: "h1", repo: "octo/hello", at: now, outcome: "completed", model: "sonnet", costUsd: 0.5, inputTokens: 100, outputTokens: 10, durationMs: 60_000 });
    await insights.recordRun({ runId: "h2", repo: "octo/hello", at: now, outcome: "completed", model: "sonnet", costUsd: 0.25, inputTokens: 100, outputTokens: 10, durationMs: 30_000 });
    // octo/secret: dana could push at sign-in, GitHub says read-only now. acme/other: never hers.
    for (const [runId, repo, model] of [
      ["s1", "octo/secret", "secret-model"],
      ["o1", "acme/other", "other-model"],
    ] as const) {
      await insights.recordRun({ runId, repo, at: now, outcome: "budget_exceeded", model, costUsd: 123.456789, inputTokens: 777_777, outputTokens: 1, durationMs: 9_999_000, autofix: "rerun" });
      const multi = proc.redis.multi();
      insights.countFindings(multi, repo, now, { raised: 41, fixed: 0, dismissed: 0 });
      await multi.exec();
    }
  });
  afterAll(async () => proc?.stop());

  async function signIn(): Promise<Map<string, string>> {
    const jar = new Map<string, string>();
    const login = await fetch(`${base}/auth/login?next=/app`, { redirect: "manual" });
    keep(jar, login);
    const authorize = new URL(login.headers.get("location")!);
    mockSignIn(
      {
        login: "dana",
        id: 31,
        repos: [
          { full_name: "octo/hello", push: true },
          { full_name: "octo/secret", push: true },
        ],
      },
      () => authorize.searchParams.get("code_challenge") ?? undefined,
    );
    keep(jar, await fetch(`${base}/auth/callback?code=code-1&state=${authorize.searchParams.get("state")}`, { redirect: "manual", headers: { cookie: cookieHeader(jar) } }));
    return jar;
  }

  it("a repository the viewer may no longer read, or never could, shows none of its numbers; naming it is a 404", async () => {
    const jar = await signIn();
    const get = (p: string) => fetch(`${base}${p}`, { redirect: "manual", headers: { cookie: cookieHeader(jar) } });
    mockInstallationToken(4242);
    permission("octo/hello", "write");
    permission("octo/secret", "read");

    const secrets = /secret-model|other-model|budget_exceeded|rerun|123\.45|777|9999|\b41\b|octo\/secret|acme/;
    for (const scope of ["", "&scope=team:octo", "&scope=repo:octo/hello"]) {
      const page = await get(`/app/insights?days=7${scope}`);
      expect(page.status).toBe(200);
      const text = await page.text();
      expect(text).toContain("sonnet");
      expect(text.replace(/<select[\s\S]*?<\/select>/g, "")).not.toMatch(secrets);
      for (const chart of CHARTS) {
        const csv = await get(`/app/insights/${chart}.csv?days=7${scope}`);
        expect(csv.status, `${chart}${scope}`).toBe(200);
        expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
        expect(await csv.text(), `${chart}${scope}`).not.toMatch(secrets);
      }
    }
    // Its own CSVs sum only octo/hello.
    const runs = (await (await get("/app/insights/runs.csv?days=7")).text()).trim().split("\r\n");
    expect(runs[0]).toBe("day,completed (runs)");
    expect(runs.at(-1)).toBe(`${new Date().toISOString().slice(0, 10)},2`);
    expect(runs).toHaveLength(8);
    const cost = (await (await get("/app/insights/cost.csv?days=7")).text()).trim().split("\r\n");
    expect(cost.at(-1)).toMatch(/,0\.75$/);

    // The scope picker offers her session's repositories; asking for the one GitHub now refuses, or one
    // never hers, is the same 404 as a team or repository that does not exist.
    for (const scope of ["repo:octo/secret", "repo:acme/other", "team:acme", "repo:octo/nothing"]) {
      for (const path of [`/app/insights?scope=${scope}`, `/app/insights/runs.csv?scope=${scope}`]) {
        const res = await get(path);
        expect(res.status, path).toBe(404);
        expect(await res.text(), path).not.toMatch(/secret-model|other-model|123\.45|777/);
      }
    }
  });

  it("bad input is a 400 that says what was wrong; an unknown chart a 404", async () => {
    const jar = await signIn();
    const get = (p: string) => fetch(`${base}${p}`, { redirect: "manual", headers: { cookie: cookieHeader(jar) } });
    const days = await get("/app/insights?days=5");
    expect(days.status).toBe(400);
    expect(await days.text()).toContain("days is one of 7, 30, 90");
    const scope = await get("/app/insights?scope=everything");
    expect(scope.status).toBe(400);
    expect(await scope.text()).toContain("scope is team:&lt;owner&gt; or repo:&lt;owner&gt;/&lt;name&gt;");
    const chart = await get("/app/insights/bogus.csv");
    expect(chart.status).toBe(404);
    expect(await chart.text()).toContain("There is no chart named bogus");
    // Signed out: the sign-in page, no numbers.
    const out = await fetch(`${base}/app/insights/runs.csv`, { redirect: "manual" });
    expect(out.status).toBe(302);
  });
});
