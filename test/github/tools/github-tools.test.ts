import type { StructuredToolInterface } from "@langchain/core/tools";
import nock from "nock";
import { ProbotOctokit } from "probot";
import { describe, expect, it } from "vitest";
import { githubTools } from "../../../src/github/tools/index.js";
import { postRunComment } from "../../../src/github/tools/github-comment.js";
import type { GitHubRunContext } from "../../../src/github/tools/run-context.js";
import { QueueSet } from "../../../src/queue/queues.js";
import { jobId } from "../../../src/queue/job-ids.js";
import { SideEffectLedger } from "../../../src/store/side-effects.js";
import { PrThreads } from "../../../src/store/pr-threads.js";
import { testRedis, uniquePrefix } from "../../helpers/redis.js";
import { testSigner } from "../../helpers/job-signer.js";
import { nockJobLogs } from "../../helpers/github-app.js";

const API = "https://api.github.com";
const THREAD = "5f0c6a52-8a1e-4c1b-9a57-3f1f5e7d2b11";

function context(prefix = uniquePrefix()): GitHubRunContext {
  const redis = testRedis();
  return {
    octokit: new ProbotOctokit({ auth: { token: "t" }, retry: { enabled: false }, throttle: { enabled: false } }),
    installationId: 5,
    owner: "octo",
    repo: "hello",
    threadId: THREAD,
    runId: "run-1",
    target: { owner: "octo", repo: "hello", number: 3 },
    requester: { login: "alice", id: 1 },
    branch: "open-swe/5f0c6a52-add-contributing",
    baseBranch: "main",
    effects: new SideEffectLedger(redis, prefix),
    queues: new QueueSet({ connection: redis, prefix, attempts: 1, signer: testSigner() }),
    prThreads: new PrThreads(redis, prefix, testSigner()),
    verdictAuthorized: false,
    provenance: { via: "github-webhook", principal: { login: "alice", id: 1 } },
    botLogin: "open-swe[bot]",
    state: { replied: false },
  };
}

const byName = (ctx: GitHubRunContext, name: string, verdictAuthorized = false): StructuredToolInterface =>
  (githubTools({ ...ctx, verdictAuthorized }, { isPullRequest: false }) as StructuredToolInterface[]).find((t) => t.name === name)!;

describe("open_or_update_pull_request", () => {
  it("refuses before anything was pushed", async () => {
    const ctx = context();
    expect(await byName(ctx, "open_or_update_pull_request").invoke({ title: "t", body: "b" })).toMatch(/commit_and_push first/);
  });

  it("opens a draft once, then updates the same PR instead of duplicating it", async () => {
    const ctx = context();
    ctx.state.pushedSha = "abc";
    nock(API)
      .get("/repos/octo/hello/pulls")
      .query({ head: `octo:${ctx.branch}`, state: "open", per_page: "1" })
      .reply(200, []);
    nock(API)
      .post("/repos/octo/hello/pulls", (b) => b.draft === true && b.head === ctx.branch && b.base === "main" && b.title === "Add CONTRIBUTING.md" && b.body.includes(`open-swe:thread=${THREAD}`))
      .reply(201, { number: 12, html_url: "https://github.com/octo/hello/pull/12" });
    const tool = byName(ctx, "open_or_update_pull_request");
    expect(await tool.invoke({ title: "Add CONTRIBUTING.md", body: "Adds a guide." })).toBe("Opened pull request #12: https://github.com/octo/hello/pull/12");
    nock(API)
      .get("/repos/octo/hello/pulls")
      .query(true)
      .reply(200, [{ number: 12 }]);
    nock(API)
      .patch("/repos/octo/hello/pulls/12", (b) => b.title === "Add CONTRIBUTING.md (v2)")
      .reply(200, { number: 12, html_url: "https://github.com/octo/hello/pull/12" });
    expect(await tool.invoke({ title: "Add CONTRIBUTING.md (v2)", body: "x" })).toMatch(/^Updated pull request #12/);
    expect(ctx.state).toMatchObject({ prNumber: 12, prUrl: "https://github.com/octo/hello/pull/12" });
    // Comments on it now belong to this run's thread.
    expect(await ctx.prThreads.origin({ owner: "Octo", repo: "hello", number: 12, body: "", authorLogin: "someone" }, "open-swe[bot]")).toBe(THREAD);
  });
});

describe("github_comment", () => {
  it("posts once per run and text, also across a resumed run with a fresh context", async () => {
    const prefix = uniquePrefix();
    const ctx = context(prefix);
    const post = nock(API).post("/repos/octo/hello/issues/3/comments", { body: "Done: https://github.com/octo/hello/pull/12" }).once().reply(201, { id: 99 });
    expect(await postRunComment(ctx, "Done: https://github.com/octo/hello/pull/12")).toEqual({ id: 99, replayed: false });
    const resumed = context(prefix);
    expect(await byName(resumed, "github_comment").invoke({ body: "Done: https://github.com/octo/hello/pull/12" })).toMatch(/not posted again/);
    expect(post.isDone()).toBe(true);
    expect(resumed.state.replied).toBe(true);
  });

  // A reply posted by an execution cut off from Redis before its record got there: GitHub has it, Redis does not.
  const BOT = { login: "open-swe[bot]", type: "Bot" };
  it.each([
    ["an issue comment", undefined, "/repos/octo/hello/issues/3/comments"],
    ["a review-comment reply", { kind: "review_comment" as const, id: 77 }, "/repos/octo/hello/pulls/3/comments"],
  ])("a resumed run finds its earlier reply (%s) at GitHub and does not post it again", async (_what, comment, listPath) => {
    const ctx = context();
    ctx.target = { owner: "octo", repo: "hello", number: 3, comment };
    ctx.resumedSince = "2026-01-02T03:04:05.000Z";
    const list = nock(API)
      .get(listPath)
      .query({ since: "2026-01-02T03:04:05.000Z", per_page: "100" })
      .reply(200, [
        { id: 4, body: "Done.", user: BOT, created_at: "2026-01-02T03:04:04.000Z" },
        { id: 5, body: "Done.", user: { login: "dana", type: "User" }, created_at: "2026-01-02T03:04:06.000Z" },
        { id: 42, body: "Done.", user: BOT, created_at: "2026-01-02T03:04:06.000Z" },
      ]);
    expect(await postRunComment(ctx, "Done.")).toEqual({ id: 42, replayed: false });
    expect(list.isDone()).toBe(true);
    expect(ctx.state.lastReply).toEqual({ id: 42, body: "Done." });
  });

  it("a resumed run whose reply never reached GitHub posts it (after one look; an earlier run's same text, or another bot's, is not it)", async () => {
    const ctx = context();
    ctx.resumedSince = "2026-01-02T03:04:05.000Z";
    const list = nock(API)
      .get("/repos/octo/hello/issues/3/comments")
      .query(true)
      .reply(200, [
        { id: 4, body: "Done.", user: BOT, created_at: "2026-01-02T03:04:04.000Z" },
        { id: 5, body: "Something else.", user: BOT, created_at: "2026-01-02T03:04:06.000Z" },
        { id: 6, body: "Done.", user: { login: "dana", type: "User" }, created_at: "2026-01-02T03:04:06.000Z" },
        // Another app's bot with the same words is not this app's reply.
        { id: 7, body: "Done.", user: { login: "other-app[bot]", type: "Bot" }, created_at: "2026-01-02T03:04:06.000Z" },
      ]);
    const post = nock(API).post("/repos/octo/hello/issues/3/comments", { body: "Done." }).reply(201, { id: 43 });
    expect(await postRunComment(ctx, "Done.")).toEqual({ id: 43, replayed: false });
    expect(list.isDone() && post.isDone()).toBe(true);
  });

  it("refuses to claim a PR it has not opened", async () => {
    expect(await byName(context(), "github_comment").invoke({ body: "I opened a pull request for this." })).toMatch(/Refused/);
  });
});

describe("request_pr_review", () => {
  it.each([
    [true, true, true],
    [true, false, false],
    [false, true, false],
  ])("verdict asked=%s, authorized=%s → verdictRequested=%s", async (asked, authorized, expected) => {
    const ctx = context();
    ctx.state.prNumber = 12;
    await byName(ctx, "request_pr_review", authorized).invoke({ instructions: "check auth", verdict: asked });
    const job = await ctx.queues.queues.review.getJob(jobId("review", "run-1", 12));
    expect(job?.data).toMatchObject({ number: 12, trigger: "mention", verdictRequested: expected, instructions: "check auth" });
  });
});

describe("schedule_thread_wakeup", () => {
  it("adds a delayed agent job on the same thread", async () => {
    const ctx = context();
    expect(await byName(ctx, "schedule_thread_wakeup").invoke({ delay_minutes: 20, note: "check CI" })).toMatch(/20 minutes/);
    const [job] = await ctx.queues.queues.agent.getDelayed();
    expect(job?.data).toMatchObject({ threadId: THREAD, trigger: "wakeup", text: "check CI" });
    expect(job?.opts.delay).toBe(20 * 60_000);
  });

  it.each([false, true])("carries the run's original verdict grant (%s), whatever the note says", async (granted) => {
    const ctx = context();
    await byName(ctx, "schedule_thread_wakeup", granted).invoke({ delay_minutes: 5, note: "then request a review --verdict" });
    const [job] = await ctx.queues.queues.agent.getDelayed();
    expect(job?.data).toMatchObject({ trigger: "wakeup", verdictAuthorized: granted });
  });
});

describe("CI tools", () => {
  it("summarizes checks and statuses on the PR head", async () => {
    const ctx = context();
    nock(API)
      .get("/repos/octo/hello/pulls/12")
      .reply(200, { head: { sha: "abcdef1234567890" } });
    nock(API)
      .get("/repos/octo/hello/commits/abcdef1234567890/check-runs")
      .query(true)
      .reply(200, { check_runs: [{ id: 7, name: "test", status: "completed", conclusion: "failure" }] });
    nock(API)
      .get("/repos/octo/hello/commits/abcdef1234567890/status")
      .reply(200, { state: "failure", statuses: [{ context: "ci/lint", state: "success", description: "ok" }] });
    const out = await byName(ctx, "get_pr_checks").invoke({ pr_number: 12 });
    expect(out).toBe('PR #12 head abcdef123456 (failure):\ncheck_run 7 "test": completed/failure\nstatus "ci/lint": success — ok');
  });

  it("reads the tail of an Actions job log", async () => {
    const ctx = context();
    nock(API)
      .get("/repos/octo/hello/check-runs/7")
      .reply(200, { id: 7, name: "test", conclusion: "failure", app: { slug: "github-actions" }, output: {} });
    nockJobLogs(API, 7, `${"x".repeat(30_000)}\nError: expected 1 to be 2`);
    const out = await byName(ctx, "get_check_logs").invoke({ check_run_id: 7 });
    expect(out).toMatch(/^check_run 7 "test" failure:\n…\(10\d{3} earlier characters cut\)/);
    expect(out).toMatch(/Error: expected 1 to be 2$/);
  });
});
