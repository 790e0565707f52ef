import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisSaver } from "../../src/agent/checkpoint/redis-saver.js";
import { AutofixLedger } from "../../src/autofix/autofix-ledger.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { RunRecords } from "../../src/store/run-records.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { RunLocks } from "../../src/threads/run-lock.js";
import { RunRegistry } from "../../src/threads/run-registry.js";
import { threadId } from "../../src/shared/thread-id.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { failedCheckRunDelivery, issueCommentPayload, mockInstallationToken, sendWebhook, nockJobLogs } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";
import { testSigner } from "../helpers/job-signer.js";

const API = "https://api.github.com";
const INSTALLATION = 6161;
const PR_URL = "https://github.com/octo/hello/pull/12";
const ISSUE_THREAD = threadId({ kind: "issue", issueId: 8108 });
const BASE = "b".repeat(40);
const content = (m: BaseMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));

/**
 * The whole loop: the agent opens a PR, its CI goes red, the ci-event job dispatches a fix run on that
 * thread, which pushes; the run's "Open SWE Autofix" check goes from in progress to success.
 */
describe("e2e: a red check on the agent's PR → a ci_fix run on the issue's thread pushes a fix", () => {
  let app: E2eApp;
  let remote: ReturnType<typeof makeBareRemote>;
  let branch = "";
  const repoCalls = () => {
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });
  };

  beforeAll(async () => {
    remote = makeBareRemote("octo", "hello");
    app = await startE2eApp(remote.template, "ci-fix", { PERMISSION_CACHE_SECONDS: "600" });
    await app.proc.queues.queues.review.pause();
    const settings = new SettingsStore(testRedis(), app.prefix);
    await settings.enableRepo("octo/hello");
    await settings.setProfile("dana", { autoFixCi: true });
  });
  afterAll(async () => app?.stop());

  it("opens the PR, then fixes its failing lint on the same branch", async () => {
    writeFileSync(
      app.replay,
      JSON.stringify([
        { tool_calls: [{ name: "write_file", args: { file_path: "/workspace/a.ts", content: "const unused = 1;\n" } }] },
        { tool_calls: [{ name: "commit_and_push", args: { message: "Add a.ts" } }] },
        { tool_calls: [{ name: "open_or_update_pull_request", args: { title: "Add a.ts", body: "A file." } }] },
        { tool_calls: [{ name: "github_comment", args: { body: `Opened ${PR_URL}` } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] },
      ]),
    );
    mockInstallationToken(INSTALLATION, 2);
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    repoCalls();
    nock(API).get("/repos/octo/hello/pulls").query(true).reply(200, []);
    nock(API).post("/repos/octo/hello/pulls").reply(201, { number: 12, html_url: PR_URL });
    nock(API).post("/repos/octo/hello/issues/comments/911/reactions").reply(201, {});
    nock(API).post("/repos/octo/hello/issues/8/comments").reply(201, { id: 655 });
    nock(API).patch("/repos/octo/hello/issues/comments/655").reply(200, { id: 655 });
    const res = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: INSTALLATION, number: 8, issueId: 8108, commentId: 911, body: "@open-swe add a.ts", pullRequest: false }),
    });
    expect(await waitForJob(app.proc.queues.queues.agent, deliveryJobId(res.deliveryId), 60_000)).toMatchObject({ state: "completed", returnvalue: { outcome: "pr_opened" } });
    branch = remote
      .git("branch", "--list", "open-swe/*")
      .trim()
      .replace(/^\*?\s*/, "");
    const head = remote.git("rev-parse", branch).trim();

    // CI goes red on the head; the fix run is scripted to try greening CI with a skipped test first (the host
    // refuses that push), then to remove the unused variable and push.
    writeFileSync(
      app.replay,
      JSON.stringify([
        { text: '{"classification":"fix","reason":"a lint error in a.ts","evidence":"a.ts:1:7 error \'unused\' is assigned a value but never used"}' },
        { tool_calls: [{ name: "write_file", args: { file_path: "/workspace/a.test.ts", content: 'it.skip("lint", () => {});\n' } }] },
        { tool_calls: [{ name: "commit_and_push", args: { message: "Skip the lint test" } }] },
        { tool_calls: [{ name: "execute", args: { command: "git reset -q --soft HEAD~1 && git reset -q && rm a.test.ts" } }] },
        { tool_calls: [{ name: "write_file", args: { file_path: "/workspace/a.ts", content: "export const used = 1;\n" } }] },
        { tool_calls: [{ name: "commit_and_push", args: { message: "Fix lint: no unused variable" } }] },
        { tool_calls: [{ name: "github_comment", args: { body: "Fixed the lint failure." } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "fixed" } }] },
      ]),
    );
    nock(API)
      .get("/repos/octo/hello/pulls/12")
      .reply(200, { number: 12, state: "open", body: "A file.", user: { login: "open-swe[bot]" }, head: { sha: head, ref: branch, repo: { full_name: "octo/hello" } }, base: { sha: BASE } });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API)
      .get(`/repos/octo/hello/commits/${head}/check-runs`)
      .query(true)
      .reply(200, {
        total_count: 1,
        check_runs: [{ id: 77, name: "lint", status: "completed", conclusion: "failure", html_url: "https://github.com/octo/hello/runs/77", app: { slug: "github-actions" } }],
      });
    nock(API).get(`/repos/octo/hello/commits/${head}/status`).query(true).reply(200, { state: "success", statuses: [] });
    nock(API).get(`/repos/octo/hello/commits/${BASE}/check-runs`).query(true).reply(200, { total_count: 0, check_runs: [] });
    nock(API).get(`/repos/octo/hello/commits/${BASE}/status`).query(true).reply(200, { state: "success", statuses: [] });
    nock(API)
      .get(`/repos/octo/hello/commits/${head}`)
      .reply(200, { sha: head, author: { login: "open-swe[bot]" } });
    nock(API)
      .get("/repos/octo/hello/check-runs/77")
      .reply(200, { id: 77, name: "lint", conclusion: "failure", app: { slug: "github-actions" }, output: {} });
    nockJobLogs(API, 77, "a.ts:1:7 error 'unused' is assigned a value but never used\n");
    // The fix run: same thread, the PR's branch.
    repoCalls();
    nock(API)
      .get("/repos/octo/hello/pulls/12")
      .reply(200, { number: 12, head: { ref: branch, repo: { full_name: "octo/hello" } }, base: { ref: "main" } });
    const reply = nock(API).post("/repos/octo/hello/issues/12/comments", { body: "Fixed the lint failure." }).reply(201, { id: 656 });
    const started = nock(API)
      .post("/repos/octo/hello/check-runs", (b: { name: string; head_sha: string; status: string }) => b.name === "Open SWE Autofix" && b.head_sha === head && b.status === "in_progress")
      .reply(201, { id: 880 });
    const settled = nock(API)
      // The check says how the tests were judged: this repository has no runner the worker knows.
      .patch(
        "/repos/octo/hello/check-runs/880",
        (b: { status: string; conclusion: string; output: { title: string; summary: string } }) =>
          b.status === "completed" && b.conclusion === "success" && b.output.title === "Fix pushed" && /\n\nNo test runner recognised .*judged by the text heuristic only\.$/.test(b.output.summary),
      )
      .reply(200, { id: 880 });
    nock(API).patch("/repos/octo/hello/issues/comments/656").reply(200, { id: 656 });
    const red = await sendWebhook(app.proc.port!, failedCheckRunDelivery({ installationId: INSTALLATION, checkRunId: 77, name: "lint", headSha: head, branch, pr: 12 }));
    const decided = await waitForJob(app.proc.queues.queues["ci-event"], deliveryJobId(red.deliveryId));
    expect(decided).toMatchObject({ state: "completed", returnvalue: { outcome: "dispatch", threadId: ISSUE_THREAD } });
    const fix = await waitForJob(app.proc.queues.queues.agent, (decided.returnvalue as { agentJob: string }).agentJob, 60_000);
    expect(fix.failedReason).toBeUndefined();
    expect(fix.state).toBe("completed");
    expect(reply.isDone()).toBe(true);
    expect(started.isDone() && settled.isDone()).toBe(true);
    // Pushed onto the PR's branch, on top of the red head, no second branch.
    expect(remote.git("rev-parse", `${branch}~1`).trim()).toBe(head);
    expect(remote.git("show", `${branch}:a.ts`)).toBe("export const used = 1;\n");
    expect(remote.git("branch", "--list", "open-swe/*").trim().split("\n")).toHaveLength(1);
    // The run saw the failure as CI output, with the log tail.
    const saved = await new RedisSaver({ redis: testRedis(), prefix: `${app.prefix}:ckpt` }).getTuple({ configurable: { thread_id: ISSUE_THREAD } });
    const humans = ((saved?.checkpoint.channel_values as { messages?: BaseMessage[] }).messages ?? []).filter((m) => m.getType() === "human").map(content);
    const tools = ((saved?.checkpoint.channel_values as { messages?: BaseMessage[] }).messages ?? []).filter((m) => m.getType() === "tool").map(content);
    expect(tools.find((t) => t.includes("weakens_tests"))).toMatch(/Push refused \(weakens_tests\): nothing was pushed, because it weakens the tests: adds a skip marker \(\.skip\(\) in a\.test\.ts/);
    expect(remote.git("ls-tree", "--name-only", branch)).not.toMatch(/a\.test\.ts/);
    expect(humans.at(-1)).toMatch(/<ci_failure>[\s\S]*- lint \(https:\/\/github.com\/octo\/hello\/runs\/77\)[\s\S]*never used[\s\S]*<\/ci_failure>/);
  }, 90_000); // two whole runs (the PR, then its fix): 8 s on a quiet machine, past 30 s at load 14

  it("a flaky failure on the fixed head re-runs only the failed jobs and changes no code", async () => {
    const head = remote.git("rev-parse", branch).trim();
    // The gate's one model call says flaky; the run ends there (no further turn is scripted).
    writeFileSync(app.replay, JSON.stringify([{ text: '{"classification":"flaky","reason":"a network timeout reaching the registry","evidence":"npm ERR! network ETIMEDOUT"}' }]));
    const red = () => {
      nock(API)
        .get(`/repos/octo/hello/commits/${head}/check-runs`)
        .query(true)
        .reply(200, {
          total_count: 1,
          check_runs: [{ id: 78, name: "test", status: "completed", conclusion: "failure", html_url: "https://github.com/octo/hello/runs/78", app: { slug: "github-actions" } }],
        });
      nock(API).get(`/repos/octo/hello/commits/${head}/status`).query(true).reply(200, { state: "success", statuses: [] });
    };
    nock(API)
      .get("/repos/octo/hello/pulls/12")
      .reply(200, { number: 12, state: "open", body: "A file.", user: { login: "open-swe[bot]" }, head: { sha: head, ref: branch, repo: { full_name: "octo/hello" } }, base: { sha: BASE } });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").times(2).reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").times(2).reply(404, {});
    red();
    nock(API).get(`/repos/octo/hello/commits/${BASE}/check-runs`).query(true).reply(200, { total_count: 0, check_runs: [] });
    nock(API).get(`/repos/octo/hello/commits/${BASE}/status`).query(true).reply(200, { state: "success", statuses: [] });
    nock(API)
      .get(`/repos/octo/hello/commits/${head}`)
      .reply(200, { sha: head, author: { login: "open-swe[bot]" } });
    nock(API)
      .get("/repos/octo/hello/check-runs/78")
      .reply(200, { id: 78, name: "test", conclusion: "failure", app: { slug: "github-actions" }, output: {} });
    nockJobLogs(API, 78, "npm ERR! network request to https://registry.npmjs.org failed, reason: ETIMEDOUT\n");
    // The fix run: its check, the gate's re-read of the head, the job's workflow run, the re-run; no push, no comment.
    const started = nock(API)
      .post("/repos/octo/hello/check-runs", (b: { head_sha: string; status: string }) => b.head_sha === head && b.status === "in_progress")
      .reply(201, { id: 881 });
    red();
    nock(API).get("/repos/octo/hello/actions/jobs/78").reply(200, { id: 78, run_id: 4242 });
    const rerun = nock(API).post("/repos/octo/hello/actions/runs/4242/rerun-failed-jobs").reply(201, {});
    const settled = nock(API)
      .patch("/repos/octo/hello/check-runs/881", (b: { conclusion: string; output: { title: string } }) => b.conclusion === "neutral" && b.output.title === "Re-ran failed jobs")
      .reply(200, { id: 881 });
    const sent = await sendWebhook(app.proc.port!, failedCheckRunDelivery({ installationId: INSTALLATION, checkRunId: 78, name: "test", headSha: head, branch, pr: 12 }));
    const decided = await waitForJob(app.proc.queues.queues["ci-event"], deliveryJobId(sent.deliveryId));
    expect(decided).toMatchObject({ state: "completed", returnvalue: { outcome: "dispatch", attempt: 2 } });
    const agentJob = (decided.returnvalue as { agentJob: string }).agentJob;
    const run = await waitForJob(app.proc.queues.queues.agent, agentJob, 60_000);
    expect(run.failedReason).toBeUndefined();
    expect(run.returnvalue).toMatchObject({ outcome: "completed", autofixGate: "flaky" });
    expect(rerun.isDone() && started.isDone() && settled.isDone()).toBe(true);
    expect(remote.git("rev-parse", branch).trim()).toBe(head);
    const record = await new RunRecords(testRedis(), app.prefix).get(agentJob);
    expect(record).toMatchObject({ trigger: "ci_fix", replayed: true, modelCalls: 1, autofixGate: { classification: "flaky", evidence: "npm ERR! network ETIMEDOUT", rerunRuns: [4242], rerun: 1 } });
    // The re-run spent no attempt: the next red on this head is judged afresh.
    expect(await new AutofixLedger(testRedis(), app.prefix).attempts("octo/hello#12", head)).toEqual({ total: 1, onHead: 0 });
  });

  it("red CI while the thread's run is busy is batched (no attempt spent), then replayed as its own fix run when the run ends", async () => {
    const head = remote.git("rev-parse", branch).trim();
    const locks = new RunLocks(testRedis(), app.prefix, 60_000);
    // A task on the issue keeps the thread busy: its first model call takes a while.
    writeFileSync(
      app.replay,
      JSON.stringify([
        { delay_ms: 2_500, tool_calls: [{ name: "github_comment", args: { body: "Looked into it." } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] },
      ]),
    );
    repoCalls();
    nock(API).post("/repos/octo/hello/issues/comments/912/reactions").reply(201, {});
    nock(API).post("/repos/octo/hello/issues/8/comments", { body: "Looked into it." }).reply(201, { id: 657 });
    nock(API).patch("/repos/octo/hello/issues/comments/657").reply(200, { id: 657 });
    const task = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: INSTALLATION, number: 8, issueId: 8108, commentId: 912, body: "@open-swe look into the docs", pullRequest: false }),
    });
    for (let i = 0; i < 200 && (await locks.holder(ISSUE_THREAD)) === null; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await locks.holder(ISSUE_THREAD)).not.toBeNull();
    // The running job is on the registry the hourly reconcile checks (it registers a few round trips after
    // taking the lock); it leaves it at its own end.
    const registry = new RunRegistry(testRedis(), app.prefix, testSigner());
    let registered: string[] = [];
    for (let i = 0; i < 100 && registered.length === 0; i++) {
      registered = (await registry.list()).map((r) => r.jobId);
      if (registered.length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(registered).toEqual([deliveryJobId(task.deliveryId)]);
    expect(await locks.holder(ISSUE_THREAD)).not.toBeNull();

    const red = () => {
      nock(API)
        .get("/repos/octo/hello/pulls/12")
        .reply(200, {
          number: 12,
          state: "open",
          body: "A file.",
          user: { login: "open-swe[bot]" },
          head: { sha: head, ref: branch, repo: { full_name: "octo/hello" } },
          base: { sha: BASE, ref: "main" },
        });
      nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
      nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
      nock(API)
        .get(`/repos/octo/hello/commits/${head}/check-runs`)
        .query(true)
        .reply(200, {
          total_count: 1,
          check_runs: [{ id: 79, name: "types", status: "completed", conclusion: "failure", html_url: "https://github.com/octo/hello/runs/79", app: { slug: "github-actions" } }],
        });
      nock(API).get(`/repos/octo/hello/commits/${head}/status`).query(true).reply(200, { state: "success", statuses: [] });
      nock(API).get(`/repos/octo/hello/commits/${BASE}/check-runs`).query(true).reply(200, { total_count: 0, check_runs: [] });
      nock(API).get(`/repos/octo/hello/commits/${BASE}/status`).query(true).reply(200, { state: "success", statuses: [] });
      nock(API)
        .get(`/repos/octo/hello/commits/${head}`)
        .reply(200, { sha: head, author: { login: "open-swe[bot]" } });
    };
    red();
    const sent = await sendWebhook(app.proc.port!, failedCheckRunDelivery({ installationId: INSTALLATION, checkRunId: 79, name: "types", headSha: head, branch, pr: 12 }));
    expect(await waitForJob(app.proc.queues.queues["ci-event"], deliveryJobId(sent.deliveryId))).toMatchObject({ returnvalue: { outcome: "batch", reason: "batched" } });
    const ledger = new AutofixLedger(testRedis(), app.prefix);
    expect(await ledger.attempts("octo/hello#12", head)).toEqual({ total: 1, onHead: 0 });

    // When the task's run ends, the event is decided again: a fix run of its own (the gate says no change here).
    writeFileSync(app.replay, JSON.stringify([{ text: '{"classification":"no_change","reason":"the type error is in generated code the branch does not touch","evidence":"gen/api.d.ts:1"}' }]));
    red();
    nock(API)
      .get("/repos/octo/hello/check-runs/79")
      .reply(200, { id: 79, name: "types", conclusion: "failure", app: { slug: "github-actions" }, output: {} });
    nockJobLogs(API, 79, "gen/api.d.ts:1 error TS2304\n");
    nock(API)
      .post("/repos/octo/hello/check-runs", (b: { head_sha: string; status: string }) => b.head_sha === head && b.status === "in_progress")
      .reply(201, { id: 882 });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    const comment = nock(API)
      .post("/repos/octo/hello/issues/12/comments", (b: { body: string }) => /changed nothing, because the type error is in generated code/.test(b.body))
      .reply(201, { id: 658 });
    const settled = nock(API)
      .patch("/repos/octo/hello/check-runs/882", (b: { conclusion: string }) => b.conclusion === "neutral")
      .reply(200, { id: 882 });
    expect(await waitForJob(app.proc.queues.queues.agent, deliveryJobId(task.deliveryId), 60_000)).toMatchObject({ state: "completed" });
    for (let i = 0; i < 400 && !(comment.isDone() && settled.isDone()); i++) await new Promise((r) => setTimeout(r, 50));
    expect(comment.isDone() && settled.isDone()).toBe(true);
    const replays = (await app.proc.queues.queues["ci-event"].getJobs(["completed"])).filter((j) => j.id?.startsWith("j__autofix-replay"));
    expect(replays.map((j) => j.returnvalue)).toMatchObject([{ outcome: "dispatch", reason: "dispatched", attempt: 2 }]);
    expect(await ledger.attempts("octo/hello#12", head)).toEqual({ total: 2, onHead: 1 });
    for (let i = 0; i < 100 && (await new RunRegistry(testRedis(), app.prefix, testSigner()).list()).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await new RunRegistry(testRedis(), app.prefix, testSigner()).list()).toEqual([]);
  });

  it("a PR in conflict with its base, found by the CI monitor: the fix run merges the base in the sandbox and pushes a merge commit", async () => {
    const head = remote.git("rev-parse", branch).trim();
    // The base moves on with its own a.ts: an add/add conflict with the branch's.
    const work = mkdtempSync(join(tmpdir(), "osw-base-"));
    const g = (...a: string[]) =>
      execFileSync("git", ["-C", work, ...a], { encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@e", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@e" } });
    execFileSync("git", ["clone", "-q", "-b", "main", remote.bare, work]);
    writeFileSync(join(work, "a.ts"), "export const fromMain = 2;\n");
    g("add", "-A");
    g("commit", "-q", "-m", "main's a.ts");
    g("push", "-q", "origin", "main");
    const main = remote.git("rev-parse", "main").trim();

    writeFileSync(
      app.replay,
      JSON.stringify([
        { tool_calls: [{ name: "execute", args: { command: "git merge --no-ff origin/main" } }] },
        { tool_calls: [{ name: "write_file", args: { file_path: "/workspace/a.ts", content: "export const used = 1;\nexport const fromMain = 2;\n" } }] },
        { tool_calls: [{ name: "execute", args: { command: "git add -A && git commit -q --no-edit" } }] },
        { tool_calls: [{ name: "commit_and_push", args: { message: "Merge main" } }] },
        { tool_calls: [{ name: "github_comment", args: { body: "Merged main and resolved the conflict in a.ts." } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "merged" } }] },
      ]),
    );
    const dirty = () =>
      nock(API)
        .get("/repos/octo/hello/pulls/12")
        .reply(200, {
          number: 12,
          state: "open",
          mergeable_state: "dirty",
          body: "A file.",
          user: { login: "open-swe[bot]" },
          head: { sha: head, ref: branch, repo: { full_name: "octo/hello" } },
          base: { sha: main, ref: "main" },
        });
    dirty(); // the sweep
    dirty(); // the ci-event job
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API)
      .get(`/repos/octo/hello/commits/${head}`)
      .reply(200, { sha: head, author: { login: "open-swe[bot]" } });
    // The fix run on the thread's branch.
    repoCalls();
    nock(API)
      .get("/repos/octo/hello/pulls/12")
      .reply(200, { number: 12, head: { ref: branch, repo: { full_name: "octo/hello" } }, base: { ref: "main" } });
    const reply = nock(API).post("/repos/octo/hello/issues/12/comments", { body: "Merged main and resolved the conflict in a.ts." }).reply(201, { id: 659 });
    nock(API).patch("/repos/octo/hello/issues/comments/659").reply(200, { id: 659 });

    const id = "j__test-sweep__conflict";
    await app.proc.queues.add("ci-monitor", { reason: "manual" }, id, { via: "github-webhook" });
    const swept = await waitForJob(app.proc.queues.queues["ci-monitor"], id);
    expect(swept.returnvalue).toMatchObject({ enqueued: 1 });
    const decided = await waitForJob(app.proc.queues.queues["ci-event"], (swept.returnvalue as { jobs: string[] }).jobs[0]!);
    expect(decided).toMatchObject({ state: "completed", returnvalue: { outcome: "dispatch", fingerprint: `conflict:${head}:${main}` } });
    const fix = await waitForJob(app.proc.queues.queues.agent, (decided.returnvalue as { agentJob: string }).agentJob, 60_000);
    expect(fix.failedReason).toBeUndefined();
    expect(reply.isDone()).toBe(true);
    const merged = remote.git("rev-parse", branch).trim();
    expect(remote.git("rev-list", "--parents", "-n", "1", merged).trim().split(" ").slice(1)).toEqual([head, main]);
    expect(remote.git("show", `${merged}:a.ts`)).toBe("export const used = 1;\nexport const fromMain = 2;\n");
  });
});
