import { randomUUID } from "node:crypto";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import nock from "nock";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisSaver } from "../../src/agent/checkpoint/redis-saver.js";
import type { RunningProcess } from "../../src/main.js";
import { RunIndex, type RunEntry } from "../../src/store/run-index.js";
import { RunRecords } from "../../src/store/run-records.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { mockInstallationToken, mockRepoRole } from "../helpers/github-app.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";
import { API, CLIENT_ID, CLIENT_SECRET, launchBrowser, screenshot, signedInPage } from "./browser.js";
import { checkPage, VIEWS } from "./page-checks.js";

const dana = { login: "dana", id: 31, repos: [{ full_name: "octo/hello", push: true }] };
const REQUEST = "The retry test fails about once in ten runs on CI.\nPlease find out why and fix it — keep the backoff as it is.";
const LONG_OUTPUT = `${"FAIL test/retry.test.ts > retries with backoff\n".repeat(80)}Tests  1 failed | 41 passed`;
const T0 = Date.UTC(2026, 11, 1, 9, 0, 0);

const conversation = (): BaseMessage[] => [
  new HumanMessage(`<internal>system notes the person never wrote</internal>\n${REQUEST}`),
  new AIMessage({
    content: "I'll run the retry test a few times to see it fail.",
    tool_calls: [{ id: "c1", name: "execute", args: { command: "for i in 1 2 3 4 5; do npx vitest run test/retry.test.ts; done" } }],
  }),
  new ToolMessage({ content: LONG_OUTPUT, tool_call_id: "c1", name: "execute" }),
  new AIMessage({
    content: "The backoff timer uses real time; the test's fake clock does not cover it. Fixing.",
    tool_calls: [{ id: "c2", name: "edit_file", args: { file_path: "/workspace/src/retry.ts", old_string: "setTimeout(", new_string: "clock.setTimeout(" } }],
  }),
  new ToolMessage({ content: "Edited /workspace/src/retry.ts", tool_call_id: "c2", name: "edit_file" }),
  new AIMessage({ content: "Fixed: the retry backoff now uses the injected clock, so the test is deterministic." }),
];

/** Steps of the thread's feed at known times (start + seconds), as the worker's saver writes them. */
const STEP_SECONDS = [0, 4, 19, 27, 28, 33];

describe("the run page tells the story: request as written, steps with times, tool calls with show all, PR health", () => {
  let proc: RunningProcess;
  let prefix: string;
  let base: string;
  let browser: Browser;

  /** A finished run on octo/hello with its conversation, step times, todo list and PR #n. */
  async function seedRun(n: number): Promise<RunEntry> {
    const e: RunEntry = {
      runId: `j__github__${randomUUID()}`,
      repo: "octo/hello",
      threadId: `gh:octo/hello#${n}`,
      trigger: "comment",
      source: "github",
      requester: "dana",
      title: REQUEST.split("\n")[0]!,
      request: REQUEST,
      status: "pr_opened",
      queuedAt: T0 - 2_000,
      startedAt: T0 - 1_000,
      finishedAt: T0 + 35_000,
      crashResumedAt: T0 + 20_000,
    };
    await new RunIndex(proc.redis, prefix).put(e);
    const messages = conversation();
    const saver = new RedisSaver({ redis: proc.redis, prefix: `${prefix}:ckpt` });
    const todos = [
      { content: "Reproduce the flaky failure", status: "completed" },
      { content: "Fix the backoff's clock", status: "completed" },
      { content: "Run the suite", status: "in_progress" },
    ];
    await saver.put(
      { configurable: { thread_id: e.threadId, checkpoint_ns: "" } },
      { ...emptyCheckpoint(), id: uuid6(1), channel_values: { messages, todos }, channel_versions: { messages: 1, todos: 1 } },
      { source: "loop", step: 1, parents: {} },
      { messages: 1, todos: 1 },
    );
    for (const [i, s] of STEP_SECONDS.entries()) await proc.redis.xadd(`${prefix}:run-feed:steps:${e.threadId}`, `${T0 + s * 1000}-0`, "f", String(i), "n", String(i + 1));
    await new RunRecords(proc.redis, prefix).save(e.runId, {
      threadId: e.threadId,
      trigger: "comment",
      modelId: "anthropic:claude-sonnet-4-5",
      effort: "medium",
      replayed: false,
      startedAt: new Date(T0).toISOString(),
      durationMs: 36_000,
      modelCalls: 3,
      inputTokens: 18_400,
      outputTokens: 910,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0.0689,
      toolCounts: { execute: 1, edit_file: 1 },
      outcome: "pr_opened",
      prUrl: `https://github.com/octo/hello/pull/${n}`,
    });
    return e;
  }

  /** What GitHub answers about PR #n once: open, conflicting, a failing and a pending check, one unresolved thread. */
  function mockPrHealth(n: number): nock.Scope[] {
    const sha = "a".repeat(40);
    return [
      nock(API)
        .get(`/repos/octo/hello/pulls/${n}`)
        .reply(200, {
          number: n,
          state: "open",
          merged: false,
          draft: false,
          mergeable: false,
          mergeable_state: "dirty",
          html_url: `https://github.com/octo/hello/pull/${n}`,
          head: { sha, ref: "open-swe/fix-retry" },
        }),
      nock(API)
        .get(`/repos/octo/hello/commits/${sha}/check-runs`)
        .query({ per_page: 100 })
        .reply(200, {
          total_count: 3,
          check_runs: [
            { id: 1, name: "test (node 22)", status: "completed", conclusion: "failure", html_url: "https://github.com/octo/hello/runs/1" },
            { id: 2, name: "lint", status: "completed", conclusion: "success", html_url: "https://github.com/octo/hello/runs/2" },
            { id: 3, name: "e2e", status: "in_progress", conclusion: null, html_url: "https://github.com/octo/hello/runs/3" },
          ],
        }),
      nock(API)
        .get(`/repos/octo/hello/commits/${sha}/status`)
        .reply(200, { state: "pending", sha, total_count: 1, statuses: [{ id: 9, context: "deploy/preview", state: "pending", target_url: "https://preview.example/9", description: "building" }] }),
      nock(API)
        .post("/graphql")
        .reply(200, {
          data: {
            repository: {
              pullRequest: {
                reviewThreads: {
                  pageInfo: { hasNextPage: false, endCursor: null },
                  nodes: [
                    { id: "T1", isResolved: false, comments: { nodes: [{ databaseId: 7001, body: "This still races.", author: { login: "erin" }, reactions: { nodes: [] } }] } },
                    { id: "T2", isResolved: true, comments: { nodes: [{ databaseId: 7002, body: "nit", author: { login: "erin" }, reactions: { nodes: [] } }] } },
                  ],
                },
              },
            },
          },
        }),
    ];
  }

  beforeAll(async () => {
    prefix = uniquePrefix();
    proc = await startTestProcess("web", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, GITHUB_CLIENT_ID: CLIENT_ID, GITHUB_CLIENT_SECRET: CLIENT_SECRET });
    base = `http://127.0.0.1:${proc.port}`;
    await new SettingsStore(proc.redis, prefix).recordInstalled("octo/hello", { installationId: 4242 });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await proc?.stop();
  });

  const signedIn = (view: { width: number; height: number; scheme: "light" | "dark" }) => signedInPage(browser, base, dana, view);

  it("shows the story, and a second view within the cache window asks GitHub nothing", { timeout: 120_000 }, async () => {
    const e = await seedRun(41);
    mockInstallationToken(4242);
    const health = mockPrHealth(41);
    // Each run page asks GitHub whether the viewer may read the repository now (or finds it cached).
    mockRepoRole("dana", "write", { optional: true });
    const { context, page } = await signedIn(VIEWS[2]);
    await page.goto(`${base}/app/runs/${e.runId}`);
    // The request as the person wrote it, not the prompt the agent was given.
    await expect(page.locator("#run-request").textContent()).resolves.toBe(REQUEST);
    expect(await page.locator("#run-request").textContent()).not.toContain("internal");
    // A resumed-after-crash run says so.
    await expect(page.locator("#run-crash-resumed").textContent()).resolves.toMatch(/stopped; another attempt resumed it from its last step at 09:00:20/);
    // Each step: its start time and duration, as Actions shows them.
    await expect(page.locator("#m-1 .step-time").textContent()).resolves.toBe("started 09:00:00 · 4.0s");
    await expect(page.locator("#m-2 .step-time").textContent()).resolves.toBe("started 09:00:04 · 15s");
    expect(await page.locator("#m-1 .step-time time").first().getAttribute("title")).toBe("2026-12-01 09:00:00 UTC");
    // Tool results collapsed, long output truncated with "show all" that serves the whole of it.
    expect(await page.locator("#m-2").evaluate((d) => (d as unknown as { open: boolean }).open)).toBe(false);
    await page.locator("#m-2 > summary").click();
    await expect(page.locator("#m-2 pre").textContent()).resolves.toMatch(/more characters\)$/);
    const full = await page.request.get(`${base}${await page.locator("#m-2 .show-all").getAttribute("href")}`);
    expect(await full.text()).toBe(LONG_OUTPUT);
    await page.locator("#m-1 .tool-call > summary").click();
    await expect(page.locator("#m-1 .tool-call pre").textContent()).resolves.toMatch(/"command": "for i in 1 2 3 4 5/);
    // The todo list.
    await expect(page.locator("#todos").textContent()).resolves.toMatch(/✔ Reproduce the flaky failure[\s\S]*▶ Run the suite/);
    // The PR's health, each item linked.
    await expect(page.locator("#pr-state").textContent()).resolves.toBe("open");
    await expect(page.locator("#pr-merge").textContent()).resolves.toMatch(/Has conflicts/);
    await expect(page.locator("#pr-checks").textContent()).resolves.toBe("1 failing, 2 pending, 1 passed");
    expect(await page.locator(".pr-failing a").getAttribute("href")).toBe("https://github.com/octo/hello/runs/1");
    expect(await page.locator(".pr-pending a").evaluateAll((as) => as.map((a) => a.getAttribute("href")))).toEqual(["https://github.com/octo/hello/runs/3", "https://preview.example/9"]);
    expect(await page.locator(".pr-thread").evaluateAll((as) => as.map((a) => a.getAttribute("href")))).toEqual(["https://github.com/octo/hello/pull/41#discussion_r7001"]);
    for (const m of health) expect(m.isDone()).toBe(true);
    // Again within the cache window: no new GitHub call (none is mocked; one would show "unavailable").
    await page.reload();
    await expect(page.locator("#pr-checks").textContent()).resolves.toBe("1 failing, 2 pending, 1 passed");
    await screenshot(page, "run-story");
    await context.close();
  });

  for (const [i, view] of VIEWS.entries()) {
    const tag = `${view.width}-${view.scheme}`;
    it(`at ${view.width} px, ${view.scheme}: the run page fits, passes axe, breaks no CSP rule`, { timeout: 90_000 }, async () => {
      const e = await seedRun(50 + i);
      mockPrHealth(50 + i);
      mockRepoRole("dana", "write", { optional: true });
      const { context, page, cspErrors } = await signedIn(view);
      await page.goto(`${base}/app/runs/${e.runId}`);
      await page.locator("#pr-state").waitFor();
      for (const d of await page.locator("details.msg").all()) await d.locator("> summary").click();
      await checkPage(page, `run story ${tag}`, cspErrors);
      if (view.width === 390 && view.scheme === "dark") await screenshot(page, "run-story-phone-dark");
      await context.close();
    });
  }
});
