import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AutofixLedger } from "../../src/autofix/autofix-ledger.js";
import { BatchedEvents } from "../../src/autofix/batched-events.js";
import type { RunningProcess } from "../../src/main.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { PrThreads } from "../../src/threads/pr-threads.js";
import { threadId } from "../../src/threads/thread-id.js";
import { RunLocks } from "../../src/threads/run-lock.js";
import { mockInstallationToken, sendWebhook, nockJobLogs } from "../helpers/github-app.js";
import { waitForJob } from "../helpers/jobs.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

const API = "https://api.github.com";
const THREAD = "6f1c2f0e-8a55-4c1b-9d7e-3b2a1c0d9e8f";
const BASE = "b".repeat(40);
let installation = 700;
let seq = 0;

/** A red `check_run.completed` from GitHub Actions on a PR's head. */
function checkRunEvent(number: number, headSha: string) {
  installation += 1;
  return {
    installationId: installation,
    payload: {
      action: "completed",
      installation: { id: installation },
      repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
      sender: { login: "github-actions[bot]", id: 41898282, type: "Bot" },
      check_run: {
        id: 55,
        name: "lint",
        status: "completed",
        conclusion: "failure",
        head_sha: headSha,
        html_url: "https://github.com/octo/hello/runs/55",
        details_url: "https://github.com/octo/hello/actions/runs/9/job/55",
        app: { slug: "github-actions", name: "GitHub Actions" },
        check_suite: { head_branch: `open-swe/${number}` },
        pull_requests: [{ number }],
      },
    },
  };
}

/** The neutral "Open SWE Autofix" check a person-changeable skip leaves on the head. */
const neutralCheck = (headSha: string, title: string) =>
  nock(API)
    .post("/repos/octo/hello/check-runs", (b: { name: string; head_sha: string; conclusion: string; output: { title: string } }) =>
      b.name === "Open SWE Autofix" && b.head_sha === headSha && b.conclusion === "neutral" && b.output.title === title,
    )
    .reply(201, { id: 1 });

const head = () => (++seq).toString(16).padStart(40, "c");
const pull = (number: number, headSha: string, author = "open-swe[bot]") =>
  nock(API)
    .get(`/repos/octo/hello/pulls/${number}`)
    .reply(200, { number, state: "open", body: "Fixes it.", user: { login: author }, head: { sha: headSha, ref: `open-swe/${number}` }, base: { sha: BASE } });

/** Everything the job reads after the PR when it gets as far as the CI facts. */
function ciFacts(headSha: string, o: { commitAuthor?: string; logs?: boolean; pending?: boolean; baseFailing?: boolean } = {}) {
  nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
  nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
  nock(API)
    .get(`/repos/octo/hello/commits/${headSha}/check-runs`)
    .query(true)
    .reply(200, {
      total_count: 3,
      check_runs: [
        { id: 55, name: "lint", status: "completed", conclusion: "failure", html_url: "https://github.com/octo/hello/runs/55", app: { slug: "github-actions" } },
        { id: 56, name: "test", status: "completed", conclusion: "success", html_url: "x", app: { slug: "github-actions" } },
        { id: 57, name: "Open SWE Review", status: "in_progress", conclusion: null, html_url: "x", app: { slug: "open-swe" } },
        ...(o.pending ? [{ id: 58, name: "e2e", status: "in_progress", conclusion: null, html_url: "x", app: { slug: "github-actions" } }] : []),
      ],
    });
  nock(API).get(`/repos/octo/hello/commits/${headSha}/status`).query(true).reply(200, { state: "success", statuses: [] });
  const baseRuns = o.baseFailing ? [{ id: 75, name: "lint", status: "completed", conclusion: "failure", html_url: "https://github.com/octo/hello/runs/75", app: { slug: "github-actions" } }] : [];
  if (!o.pending) nock(API).get(`/repos/octo/hello/commits/${BASE}/check-runs`).query(true).reply(200, { total_count: baseRuns.length, check_runs: baseRuns });
  if (!o.pending) nock(API).get(`/repos/octo/hello/commits/${BASE}/status`).query(true).reply(200, { state: "success", statuses: [] });
  nock(API).get(`/repos/octo/hello/commits/${headSha}`).reply(200, { sha: headSha, author: { login: o.commitAuthor ?? "open-swe[bot]" } });
  if (o.logs !== false) {
    nock(API).get("/repos/octo/hello/check-runs/55").reply(200, { id: 55, name: "lint", conclusion: "failure", app: { slug: "github-actions" }, output: {} });
    nockJobLogs(API, 55, "step 1\nsrc/a.ts:3:1 error no-unused-vars\n");
  }
}

describe("CI autofix: a red check on our PR becomes a fix run on the thread that opened it", () => {
  let proc: RunningProcess;
  let prefix: string;
  const settings = () => new SettingsStore(testRedis(), prefix);
  beforeAll(async () => {
    prefix = uniquePrefix();
    proc = await startTestProcess("all", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, JOB_ATTEMPTS: "1", PERMISSION_CHECK_BUDGET_SECONDS: "1" });
    // The fix run itself is not under test here: its job stays queued, so the test reads what was enqueued.
    await proc.queues.queues.agent.pause();
    await settings().enableRepo("octo/hello");
    await settings().setProfile("alice", { autoFixCi: true });
  });
  afterAll(async () => proc?.stop());

  const ourPr = (number: number) => new PrThreads(testRedis(), prefix).record({ owner: "octo", repo: "hello", number, branch: `open-swe/${number}` }, THREAD, { login: "alice", id: 11 });
  async function deliver(number: number, headSha: string) {
    const { payload, installationId } = checkRunEvent(number, headSha);
    mockInstallationToken(installationId);
    const res = await sendWebhook(proc.port!, { event: "check_run", payload });
    expect(res.status).toBe(200);
    return waitForJob(proc.queues.queues["ci-event"], deliveryJobId(res.deliveryId));
  }

  it("dispatches one ci_fix agent job on the originating thread naming the check and its log tail; a redelivery does not dispatch again", async () => {
    await ourPr(12);
    const sha = head();
    pull(12, sha);
    ciFacts(sha);
    const done = await deliver(12, sha);
    expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "dispatch", reason: "dispatched", attempt: 1, threadId: THREAD } });
    const agentJob = await proc.queues.queues.agent.getJob((done.returnvalue as { agentJob: string }).agentJob);
    expect(agentJob?.data).toMatchObject({ threadId: THREAD, trigger: "ci_fix", number: 12, isPullRequest: true, requester: { login: "alice", id: 11 }, autofixHead: sha });
    expect(agentJob?.data.text).toContain("- lint (https://github.com/octo/hello/runs/55)");
    expect(agentJob?.data.text).toContain("error no-unused-vars");
    expect(agentJob?.data.text).not.toContain("Open SWE Review");

    pull(12, sha);
    ciFacts(sha, { logs: false });
    expect(await deliver(12, sha)).toMatchObject({ returnvalue: { outcome: "skip", reason: "max_attempts" } });
    expect(await proc.queues.queues.agent.count()).toBe(1);
    const decisions = await new AutofixLedger(testRedis(), prefix).decisions("octo/hello#12");
    expect(decisions.map((d) => d.reason)).toEqual(["max_attempts", "dispatched"]);
  });

  it("the per-PR toggle off stops it before any CI read", async () => {
    await ourPr(13);
    await settings().setAutofix("octo/hello#13", false);
    const sha = head();
    pull(13, sha);
    const check = neutralCheck(sha, "Autofix is off");
    expect(await deliver(13, sha)).toMatchObject({ returnvalue: { outcome: "skip", reason: "pr_disabled" } });
    expect(check.isDone()).toBe(true);
  });

  it("a PR no agent thread opened is skipped with no_agent_thread", async () => {
    const sha = head();
    pull(14, sha, "bob");
    expect(await deliver(14, sha)).toMatchObject({ returnvalue: { outcome: "skip", reason: "no_agent_thread" } });
  });

  it("at the cap (autofix.max_attempts, default 3) nothing is dispatched: a neutral check per head, one comment asking for a human", async () => {
    await ourPr(15);
    const ledger = new AutofixLedger(testRedis(), prefix);
    for (const h of ["1", "2", "3"]) expect(await ledger.claim("octo/hello#15", { fingerprint: h, headSha: h, maxAttempts: 3, ci: true, counts: true })).toBe("ok");
    const sha = head();
    pull(15, sha);
    ciFacts(sha, { logs: false });
    neutralCheck(sha, "Autofix limit reached");
    const comment = nock(API).post("/repos/octo/hello/issues/15/comments", (b: { body: string }) => /^CI autofix limit reached — a human is needed\. I made 3 fix runs/.test(b.body)).reply(201, { id: 2 });
    expect(await deliver(15, sha)).toMatchObject({ returnvalue: { outcome: "skip", reason: "max_attempts", attempt: 3 } });
    expect(comment.isDone()).toBe(true);
    // A later push still red: its head gets the check; the comment is never repeated.
    const next = head();
    pull(15, next);
    ciFacts(next, { logs: false });
    const check = neutralCheck(next, "Autofix limit reached");
    const repeat = nock(API).post("/repos/octo/hello/issues/15/comments");
    repeat.reply(201, { id: 3 });
    expect(await deliver(15, next)).toMatchObject({ returnvalue: { outcome: "skip", reason: "max_attempts" } });
    expect(check.isDone()).toBe(true);
    expect(nock.pendingMocks()).toContain("POST https://api.github.com:443/repos/octo/hello/issues/15/comments");
    nock.removeInterceptor(repeat);
  });

  it("a person's commit on the head stops the loop", async () => {
    await ourPr(16);
    const sha = head();
    pull(16, sha);
    ciFacts(sha, { commitAuthor: "carol", logs: false });
    neutralCheck(sha, "Autofix stands back");
    expect(await deliver(16, sha)).toMatchObject({ returnvalue: { outcome: "skip", reason: "human_commit" } });
  });

  it("a check that is red on the base commit too is not the branch's doing: skipped with a neutral check, no fix run", async () => {
    await ourPr(17);
    const sha = head();
    pull(17, sha);
    ciFacts(sha, { logs: false, baseFailing: true });
    const check = neutralCheck(sha, "Failing on the base too");
    const before = await proc.queues.queues.agent.count();
    expect(await deliver(17, sha)).toMatchObject({ returnvalue: { outcome: "skip", reason: "all_failing_on_base" } });
    expect(check.isDone()).toBe(true);
    expect(await proc.queues.queues.agent.count()).toBe(before);
  });

  it("a repo that is not enabled costs no GitHub call", async () => {
    await settings().disableRepo("octo/hello");
    try {
      const { payload } = checkRunEvent(12, head());
      const res = await sendWebhook(proc.port!, { event: "check_run", payload });
      expect(await waitForJob(proc.queues.queues["ci-event"], deliveryJobId(res.deliveryId))).toMatchObject({ returnvalue: { outcome: "skip", reason: "repo_not_enabled" } });
    } finally {
      await settings().enableRepo("octo/hello");
    }
  });

  it("a thread whose run is active: the event is stored for after the run (no agent job, no attempt)", async () => {
    await ourPr(17);
    await proc.queues.queues.agent.add("agent", {}, { jobId: "busy-run", delay: 3600_000 });
    await new RunLocks(testRedis(), prefix, 60_000).acquire(THREAD, "busy-run");
    try {
      const sha = head();
      pull(17, sha);
      ciFacts(sha, { logs: false });
      const done = await deliver(17, sha);
      const agents = await proc.queues.queues.agent.count();
      expect(done).toMatchObject({ returnvalue: { outcome: "batch", reason: "batched", attempt: 0 } });
      expect(done.returnvalue).not.toHaveProperty("agentJob");
      expect(await proc.queues.queues.agent.count()).toBe(agents);
      expect(await new AutofixLedger(testRedis(), prefix).attempts("octo/hello#17", sha)).toEqual({ total: 0, onHead: 0 });
      expect(await new AutofixLedger(testRedis(), prefix).handled("octo/hello#17")).toEqual([]);
      const stored = await new BatchedEvents(testRedis(), prefix).take(THREAD);
      expect(stored).toMatchObject([{ fingerprint: `${sha}:lint`, event: { prNumbers: [17], headSha: sha } }]);
    } finally {
      await new RunLocks(testRedis(), prefix, 60_000).release(THREAD, "busy-run");
    }
  });

  it("checks still running on the head: waits, with one delayed re-check queued", async () => {
    await ourPr(18);
    const sha = head();
    pull(18, sha);
    ciFacts(sha, { pending: true, logs: false });
    const before = await proc.queues.queues["ci-event"].getDelayedCount();
    expect(await deliver(18, sha)).toMatchObject({ returnvalue: { outcome: "wait", reason: "checks_pending" } });
    expect(await proc.queues.queues["ci-event"].getDelayedCount()).toBe(before + 1);
  });

  it("a failing commit status (no PR in the event) finds its PR through the commit", async () => {
    await ourPr(19);
    const sha = head();
    installation += 1;
    mockInstallationToken(installation);
    nock(API)
      .get(`/repos/octo/hello/commits/${sha}/pulls`)
      .reply(200, [{ number: 19, state: "open", body: "", user: { login: "open-swe[bot]" }, head: { sha, ref: "open-swe/19" }, base: { sha: BASE } }]);
    ciFacts(sha, { commitAuthor: "carol", logs: false });
    neutralCheck(sha, "Autofix stands back");
    const payload = {
      installation: { id: installation },
      repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
      sender: { login: "ci-bot", id: 3, type: "Bot" },
      sha,
      state: "failure",
      context: "ci/jenkins",
      target_url: "https://ci.example/1",
      branches: [{ name: "open-swe/19" }],
    };
    const res = await sendWebhook(proc.port!, { event: "status", payload });
    expect(await waitForJob(proc.queues.queues["ci-event"], deliveryJobId(res.deliveryId))).toMatchObject({
      returnvalue: { outcome: "skip", reason: "human_commit", pr: "octo/hello#19" },
    });
  });

  describe("`@open-swe fix ci` from a writer", () => {
    function fixCi(number: number, login: string, body = "@open-swe fix ci") {
      installation += 1;
      return {
        installationId: installation,
        payload: {
          action: "created",
          installation: { id: installation },
          repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
          sender: { login, id: 21, type: "User" },
          issue: { number, id: 5000 + number, user: { login: "bob" }, pull_request: { url: "x" } },
          comment: { id: 950 + number, body, user: { login, id: 21, type: "User" } },
        },
      };
    }
    const writer = (login: string) => nock(API).get(`/repos/octo/hello/collaborators/${login}/permission`).reply(200, { permission: "write", role_name: "write", user: { login } });

    it("on someone else's PR: a fix run on that PR's thread, for the writer, answering the comment, despite a person's commit and nobody opting in", async () => {
      const sha = head();
      const { payload, installationId } = fixCi(20, "wendy");
      mockInstallationToken(installationId);
      writer("wendy");
      pull(20, sha, "bob");
      ciFacts(sha, { commitAuthor: "bob" });
      const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
      const done = await waitForJob(proc.queues.queues.command, deliveryJobId(res.deliveryId));
      expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "fix_ci_dispatch", reason: "dispatched", attempt: 1 } });
      const job = await proc.queues.queues.agent.getJob((done.returnvalue as { agentJob: string }).agentJob);
      expect(job?.data).toMatchObject({
        threadId: threadId({ kind: "pr", owner: "octo", repo: "hello", number: 20 }),
        trigger: "ci_fix",
        requester: { login: "wendy", id: 21 },
        comment: { kind: "issue_comment", id: 970 },
      });
      expect(job?.data.text).toContain("error no-unused-vars");
      expect(job?.data.allowTestConfig).toBeUndefined();
    });

    it("`fix ci --allow-test-config`: the fix run's job carries the typed allowance", async () => {
      const sha = head();
      const { payload, installationId } = fixCi(57, "wren", "@open-swe fix ci --allow-test-config");
      mockInstallationToken(installationId);
      writer("wren");
      pull(57, sha, "bob");
      ciFacts(sha, { commitAuthor: "bob" });
      const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
      const done = await waitForJob(proc.queues.queues.command, deliveryJobId(res.deliveryId));
      expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "fix_ci_dispatch" } });
      const job = await proc.queues.queues.agent.getJob((done.returnvalue as { agentJob: string }).agentJob);
      expect(job?.data).toMatchObject({ trigger: "ci_fix", allowTestConfig: true });
    });

    it("with nothing failing: one reply saying so, no run", async () => {
      const sha = head();
      const { payload, installationId } = fixCi(21, "wanda");
      mockInstallationToken(installationId);
      writer("wanda");
      pull(21, sha, "bob");
      nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
      nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
      nock(API).get(`/repos/octo/hello/commits/${sha}/check-runs`).query(true).reply(200, { total_count: 1, check_runs: [{ id: 60, name: "lint", status: "completed", conclusion: "success", app: { slug: "github-actions" } }] });
      nock(API).get(`/repos/octo/hello/commits/${sha}/status`).query(true).reply(200, { state: "success", statuses: [] });
      nock(API).get(`/repos/octo/hello/commits/${sha}`).reply(200, { sha, author: null });
      const reply = nock(API).post("/repos/octo/hello/issues/21/comments", (b: { body: string }) => /^No check is failing/.test(b.body)).reply(201, { id: 9 });
      const agentJobs = await proc.queues.queues.agent.count();
      const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
      expect(await waitForJob(proc.queues.queues.command, deliveryJobId(res.deliveryId))).toMatchObject({ returnvalue: { outcome: "fix_ci_skip", reason: "no_failing_checks" } });
      expect(reply.isDone()).toBe(true);
      expect(await proc.queues.queues.agent.count()).toBe(agentJobs);
    });
  });

  it("a bare `@open-swe autofix` on our PR says its state, why, and the attempts used", async () => {
    await ourPr(24);
    await new AutofixLedger(testRedis(), prefix).claim("octo/hello#24", { fingerprint: "f", headSha: "h", maxAttempts: 3, ci: true, counts: true });
    installation += 1;
    mockInstallationToken(installation);
    nock(API).get("/repos/octo/hello/collaborators/olga/permission").reply(200, { permission: "write", role_name: "write", user: { login: "olga" } });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
    const reply = nock(API)
      .post("/repos/octo/hello/issues/24/comments", (b: { body: string }) => /^CI autofix is \*\*on\*\* for this pull request: @alice's profile turns it on .* 1 of 3 fix runs/.test(b.body))
      .reply(201, { id: 12 });
    const payload = {
      action: "created",
      installation: { id: installation },
      repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
      sender: { login: "olga", id: 41, type: "User" },
      issue: { number: 24, id: 5024, pull_request: { url: "x" } },
      comment: { id: 990, body: "@open-swe autofix", user: { login: "olga", id: 41, type: "User" } },
    };
    const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
    expect(await waitForJob(proc.queues.queues.command, deliveryJobId(res.deliveryId))).toMatchObject({ returnvalue: { outcome: "autofix_status", attempts: 1, maxAttempts: 3 } });
    expect(reply.isDone()).toBe(true);
  });

  describe("a `changes requested` review on our PR", () => {
    function reviewEvent(number: number, headSha: string, reviewer: string, review: { state: string; body: string } = { state: "changes_requested", body: "Please rename foo." }) {
      installation += 1;
      return {
        installationId: installation,
        payload: {
          action: "submitted",
          installation: { id: installation },
          repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
          sender: { login: reviewer, id: 31, type: "User" },
          review: { id: 4400 + number, ...review, user: { login: reviewer, id: 31 }, html_url: `https://github.com/octo/hello/pull/${number}#r1` },
          pull_request: { number, head: { sha: headSha, ref: `open-swe/${number}` } },
        },
      };
    }
    async function deliverReview(number: number, sha: string, reviewer: string, permission: string, review?: { state: string; body: string }) {
      const { payload, installationId } = reviewEvent(number, sha, reviewer, review);
      mockInstallationToken(installationId);
      pull(number, sha);
      nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
      nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
      nock(API).get(`/repos/octo/hello/commits/${sha}`).reply(200, { sha, author: { login: "open-swe[bot]" } });
      nock(API).get(`/repos/octo/hello/collaborators/${reviewer}/permission`).reply(200, { permission, role_name: permission, user: { login: reviewer } });
      const res = await sendWebhook(proc.port!, { event: "pull_request_review", payload });
      return waitForJob(proc.queues.queues["ci-event"], deliveryJobId(res.deliveryId));
    }

    it("from a writer: a fix run on the thread with the review's words and line comments", async () => {
      await ourPr(22);
      const sha = head();
      nock(API).get("/repos/octo/hello/pulls/22/reviews/4422").reply(200, { id: 4422, body: "Please rename foo.", user: { login: "rita" }, html_url: "https://github.com/octo/hello/pull/22#r1" });
      nock(API).get("/repos/octo/hello/pulls/22/reviews/4422/comments").query(true).reply(200, [{ path: "src/a.ts", line: 3, body: "foo → bar" }]);
      const done = await deliverReview(22, sha, "rita", "write");
      expect(done).toMatchObject({ returnvalue: { outcome: "dispatch", reason: "dispatched", fingerprint: "review:4422" } });
      const job = await proc.queues.queues.agent.getJob((done.returnvalue as { agentJob: string }).agentJob);
      expect(job?.data).toMatchObject({ threadId: THREAD, trigger: "ci_fix", number: 22 });
      expect(job?.data.text).toContain("Please rename foo.");
      expect(job?.data.text).toContain("- src/a.ts:3: foo → bar");
    });

    it("a comment review whose body asks for a change, from a writer: a fix run too", async () => {
      await ourPr(24);
      const sha = head();
      nock(API).get("/repos/octo/hello/pulls/24/reviews/4424").reply(200, { id: 4424, body: "Could you handle the empty list here?", user: { login: "vera" }, html_url: "https://github.com/octo/hello/pull/24#r1" });
      nock(API).get("/repos/octo/hello/pulls/24/reviews/4424/comments").query(true).reply(200, [{ path: "src/a.ts", line: 9, body: "empty list → crash" }]);
      const done = await deliverReview(24, sha, "vera", "write", { state: "commented", body: "Could you handle the empty list here?" });
      expect(done).toMatchObject({ returnvalue: { outcome: "dispatch", reason: "dispatched", fingerprint: "review:4424" } });
      const job = await proc.queues.queues.agent.getJob((done.returnvalue as { agentJob: string }).agentJob);
      expect(job?.data.text).toMatch(/asked for changes[\s\S]*Could you handle the empty list here\?[\s\S]*- src\/a\.ts:9: empty list → crash/);
    });

    it("a comment review asking for a change from a non-writer, or GitHub not answering the permission check: ignored", async () => {
      await ourPr(25);
      expect(await deliverReview(25, head(), "nora", "read", { state: "commented", body: "Please rename foo." })).toMatchObject({ returnvalue: { outcome: "skip", reason: "reviewer_no_write_permission" } });
      await ourPr(26);
      const sha = head();
      const { payload, installationId } = reviewEvent(26, sha, "gus", { state: "commented", body: "Please rename foo." });
      mockInstallationToken(installationId);
      pull(26, sha);
      nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
      nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
      nock(API).get(`/repos/octo/hello/commits/${sha}`).reply(200, { sha, author: { login: "open-swe[bot]" } });
      nock(API).get("/repos/octo/hello/collaborators/gus/permission").times(3).reply(502, { message: "Bad Gateway" });
      const res = await sendWebhook(proc.port!, { event: "pull_request_review", payload });
      expect(await waitForJob(proc.queues.queues["ci-event"], deliveryJobId(res.deliveryId))).toMatchObject({ returnvalue: { outcome: "skip", reason: "reviewer_no_write_permission" } });
      nock.cleanAll();
    });

    it("praise, an empty body, or a mention of the app is no review feedback: no ci-event job", async () => {
      for (const review of [{ state: "approved", body: "LGTM, thanks!" }, { state: "commented", body: "" }, { state: "commented", body: "@open-swe fix ci" }]) {
        const { payload, installationId } = reviewEvent(27, head(), "rita", review);
        mockInstallationToken(installationId);
        const res = await sendWebhook(proc.port!, { event: "pull_request_review", payload });
        expect(res.status).toBe(200);
        expect(await proc.queues.queues["ci-event"].getJob(deliveryJobId(res.deliveryId))).toBeUndefined();
        nock.cleanAll();
      }
    });

    it("from someone without write access: ignored (reviewer_no_write_permission)", async () => {
      await ourPr(23);
      expect(await deliverReview(23, head(), "randy", "read")).toMatchObject({ returnvalue: { outcome: "skip", reason: "reviewer_no_write_permission" } });
    });
  });
});

describe("CI autofix: checks that never finish do not block it past AUTOFIX_SETTLE_MINUTES", () => {
  let proc: RunningProcess;
  let prefix: string;
  beforeAll(async () => {
    prefix = uniquePrefix();
    proc = await startTestProcess("all", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, JOB_ATTEMPTS: "1", AUTOFIX_SETTLE_MINUTES: "0" });
    await proc.queues.queues.agent.pause();
    await new SettingsStore(testRedis(), prefix).enableRepo("octo/hello");
    await new SettingsStore(testRedis(), prefix).setProfile("alice", { autoFixCi: true });
  });
  afterAll(async () => proc?.stop());

  it("decides with what failed by then: dispatches, no re-check queued", async () => {
    await new PrThreads(testRedis(), prefix).record({ owner: "octo", repo: "hello", number: 30, branch: "open-swe/30" }, THREAD, { login: "alice", id: 11 });
    const sha = head();
    const { payload, installationId } = checkRunEvent(30, sha);
    mockInstallationToken(installationId);
    pull(30, sha);
    ciFacts(sha, { pending: true });
    nock(API).get(`/repos/octo/hello/commits/${BASE}/check-runs`).query(true).reply(200, { total_count: 0, check_runs: [] });
    nock(API).get(`/repos/octo/hello/commits/${BASE}/status`).query(true).reply(200, { state: "success", statuses: [] });
    const res = await sendWebhook(proc.port!, { event: "check_run", payload });
    expect(await waitForJob(proc.queues.queues["ci-event"], deliveryJobId(res.deliveryId))).toMatchObject({ returnvalue: { outcome: "dispatch", reason: "dispatched" } });
    expect(await proc.queues.queues["ci-event"].getDelayedCount()).toBe(0);
  });
});
