import { generateKeyPairSync, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { readConfig } from "../src/config/env.js";
import { createLogger } from "../src/logger.js";
import { startProcess } from "../src/main.js";
import { startEmbeddedRedis } from "../src/store/embedded-redis.js";
import { RunIndex, type RunEntry } from "../src/store/run-index.js";
import { RunInsights } from "../src/store/run-insights.js";
import { RunRecords } from "../src/store/run-records.js";
import { SettingsStore } from "../src/store/settings-store.js";
import type { RunRecord } from "../src/shared/run-record.js";

const API = "https://api.github.com";
const DAY = 86_400_000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (n: number) => Number(n.toFixed(2));

function flag(argv: string[], name: string, fallback: string): string {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] ? argv[i + 1]! : fallback;
}

/**
 * Time to first byte of the Insights page (every repository, 30 and 90 days) against the runs list,
 * in the same run, with `--runs` (10,000) agent runs in the index, their records and their counters,
 * spread over `--repos` (10) repositories and 30 days. A web role on embedded Redis; GitHub (sign-in,
 * rights) nock'd, its answers cached as in steady use. Prints a JSON line last.
 */
export async function main(argv: string[]): Promise<void> {
  const runs = Number(flag(argv, "--runs", "10000"));
  const repoCount = Number(flag(argv, "--repos", "10"));
  const rounds = Number(flag(argv, "--rounds", "30"));
  const data = mkdtempSync(join(tmpdir(), "open-swe-bench-insights-"));
  const redisServer = await startEmbeddedRedis(data, createLogger("silent"));
  const prefix = `bench${randomUUID().slice(0, 6)}`;
  const key = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
  const config = readConfig({
    APP_ID: "1",
    PRIVATE_KEY: key,
    WEBHOOK_SECRET: "bench",
    QUEUE_REDIS_URL: redisServer.url,
    QUEUE_PREFIX: prefix,
    DATA_DIR: data,
    LOG_LEVEL: "silent",
    GITHUB_CLIENT_ID: "Iv1.bench",
    GITHUB_CLIENT_SECRET: "bench",
    PERMISSION_CACHE_SECONDS: "300",
  });
  nock.disableNetConnect();
  nock.enableNetConnect((host) => host.startsWith("127.0.0.1"));
  const proc = await startProcess({ role: "web", config, log: createLogger("silent"), port: 0, host: "127.0.0.1", octokitDefaults: { retry: { enabled: false }, throttle: { enabled: false } } });
  const base = `http://127.0.0.1:${proc.port}`;
  try {
    const repos = Array.from({ length: repoCount }, (_, i) => `octo/repo${i}`);
    const settings = new SettingsStore(proc.redis, prefix);
    for (const repo of repos) await settings.recordInstalled(repo, { installationId: 42 });
    console.log(`seeding ${runs} runs over ${repoCount} repositories and 30 days...`);
    const index = new RunIndex(proc.redis, prefix, runs);
    const records = new RunRecords(proc.redis, prefix, runs);
    const insights = new RunInsights(proc.redis, prefix);
    const now = Date.now();
    const outcomes = ["completed", "pr_opened", "failed", "stopped"] as const;
    for (let i = 0; i < runs; i += 200) {
      await Promise.all(
        Array.from({ length: Math.min(200, runs - i) }, async (_, j) => {
          const n = i + j;
          const at = now - Math.floor((n / runs) * 30 * DAY);
          const entry: RunEntry = {
            runId: `run-${n}`,
            repo: repos[n % repoCount]!,
            threadId: randomUUID(),
            trigger: "comment",
            source: "github",
            requester: "dana",
            title: `task ${n}`,
            status: outcomes[n % 4]!,
            queuedAt: at - 120_000,
            startedAt: at - 110_000,
            finishedAt: at,
          };
          const record: RunRecord = {
            threadId: entry.threadId,
            trigger: "comment",
            modelId: n % 3 ? "anthropic:claude-sonnet-4-5" : "anthropic:claude-opus-4-5",
            effort: "medium",
            replayed: false,
            startedAt: new Date(at - 110_000).toISOString(),
            durationMs: 110_000,
            modelCalls: 8,
            inputTokens: 40_000,
            outputTokens: 2_000,
            cachedTokens: 0,
            cacheWriteTokens: 0,
            costUsd: 0.15,
            toolCounts: { execute: 4 },
            outcome: entry.status as RunRecord["outcome"],
          };
          await index.put(entry);
          await records.save(entry.runId, record);
          await insights.recordRun({
            runId: entry.runId,
            repo: entry.repo,
            at,
            outcome: entry.status,
            model: record.modelId,
            costUsd: 0.15,
            inputTokens: 40_000,
            outputTokens: 2_000,
            durationMs: 110_000,
          });
        }),
      );
    }

    // Sign in through the real OAuth pages (GitHub's side nock'd), then GitHub's rights answer, cached.
    const jar: string[] = [];
    const login = await fetch(`${base}/auth/login?next=/app`, { redirect: "manual" });
    jar.push(...login.headers.getSetCookie().map((c) => c.split(";")[0]!));
    const state = new URL(login.headers.get("location")!).searchParams.get("state")!;
    nock("https://github.com")
      .post("/login/oauth/access_token")
      .reply(200, { access_token: "ghu_bench", refresh_token: "ghr_bench", expires_in: 28800, refresh_token_expires_in: 15_811_200, token_type: "bearer" });
    nock(API).get("/user").reply(200, { login: "dana", id: 31 });
    nock(API)
      .get("/user/installations/42/repositories")
      .query(true)
      .reply(200, { total_count: repoCount, repositories: repos.map((full_name) => ({ full_name, permissions: { push: true, pull: true, admin: false } })) });
    const back = await fetch(`${base}/auth/callback?code=code-1&state=${state}`, { redirect: "manual", headers: { cookie: jar.join("; ") } });
    jar.push(...back.headers.getSetCookie().map((c) => c.split(";")[0]!));
    const cookie = jar.join("; ");
    nock(API)
      .post("/app/installations/42/access_tokens")
      .reply(201, { token: "ghs_bench", expires_at: new Date(Date.now() + 3600_000).toISOString() });
    for (const repo of repos) nock(API).get(`/repos/${repo}/collaborators/dana/permission`).reply(200, { permission: "write", role_name: "write" });

    const ttfb = async (path: string): Promise<number> => {
      const t0 = performance.now();
      const res = await fetch(`${base}${path}`, { headers: { cookie }, redirect: "manual" });
      const ms = performance.now() - t0;
      const body = await res.text();
      if (res.status !== 200 || (path.startsWith("/app/insights") && !body.includes("data-chart="))) throw new Error(`${path} answered ${res.status}`);
      return ms;
    };
    const pages = { runs: "/app/runs", insights30: "/app/insights?days=30", insights90: "/app/insights?days=90", team30: "/app/insights?scope=team:octo&days=30" } as const;
    // Warm: the rights are asked of GitHub once, then cached (as in use).
    for (const path of Object.values(pages)) await ttfb(path);
    const samples: Record<keyof typeof pages, number[]> = { runs: [], insights30: [], insights90: [], team30: [] };
    for (let r = 0; r < rounds; r++) for (const [name, path] of Object.entries(pages) as [keyof typeof pages, string][]) samples[name].push(await ttfb(path));
    const med = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, round(median(v))])) as Record<keyof typeof pages, number>;
    const result = {
      bench: "insights",
      runs,
      repos: repoCount,
      rounds,
      ttfbMedianMs: med,
      ratioToRunsList: { insights30: round(med.insights30 / med.runs), insights90: round(med.insights90 / med.runs), team30: round(med.team30 / med.runs) },
      loadavg: (await import("node:os")).loadavg().map(round),
    };
    console.log(JSON.stringify(result));
  } finally {
    nock.cleanAll();
    nock.enableNetConnect();
    await proc.stop();
    await redisServer.stop();
    rmSync(data, { recursive: true, force: true });
  }
}
