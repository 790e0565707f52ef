import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { deliveryJobId, reviewJobId } from "../../src/queue/job-ids.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { RunLocks } from "../../src/threads/run-lock.js";
import { threadId } from "../../src/shared/thread-id.js";
import { mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { jobAppears, waitForJob } from "../helpers/jobs.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

const API = "https://api.github.com";
const repository = { name: "hello", full_name: "octo/hello", owner: { login: "octo" } };
type CheckBody = { name?: string; status?: string; conclusion?: string; head_sha?: string; output: { title: string; summary: string } };

let installation = 900;
let checkId = 1;

/** The review check of one pass: created in progress on `sha` before any work, then one settling PATCH. */
function mockReviewCheck(sha: string): CheckBody[] {
  const settled: CheckBody[] = [];
  const id = checkId++;
  nock(API)
    .post("/repos/octo/hello/check-runs", (b: CheckBody) => b.name === "Open SWE Review" && b.head_sha === sha && b.status === "in_progress")
    .reply(201, { id })
    .patch(`/repos/octo/hello/check-runs/${id}`, (b: CheckBody) => {
      settled.push(b);
      return true;
    })
    .reply(200, { id });
  return settled;
}

function mockNoRepoConfig(): void {
  nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
  nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
}

const pull = (n: number, sha: string, o: { draft?: boolean; state?: string; user?: { login: string; type: string } } = {}) => ({
  number: n,
  state: o.state ?? "open",
  draft: o.draft ?? false,
  title: "t",
  body: "",
  head: { sha, ref: `b${n}` },
  user: o.user ?? { login: "bob", type: "User" },
});

async function opened(proc: RunningProcess, n: number, sha: string, o: Parameters<typeof pull>[2] = {}): Promise<{ state: string; returnvalue: unknown; failedReason: string | undefined }> {
  installation += 1;
  mockInstallationToken(installation);
  const res = await sendWebhook(proc.port!, {
    event: "pull_request",
    payload: { action: "opened", installation: { id: installation }, repository, sender: { login: "bob", id: 8, type: "User" }, pull_request: pull(n, sha, o) },
  });
  expect(res.status).toBe(200);
  return waitForJob(proc.queues.queues.review, reviewJobId(threadId({ kind: "reviewer", owner: "octo", repo: "hello", number: n }), sha, "opened"));
}

describe("the Open SWE Review check settles on every path", () => {
  let proc: RunningProcess;
  let prefix: string;
  beforeAll(async () => {
    prefix = uniquePrefix();
    const replay = join(mkdtempSync(join(tmpdir(), "open-swe-check-")), "replay.json");
    writeFileSync(replay, JSON.stringify([{ text: "unused" }]));
    proc = await startTestProcess("all", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, JOB_ATTEMPTS: "1", REVIEW_LOCK_WAIT_SECONDS: "1", OPEN_SWE_MODEL: `replay:${replay}` });
    await new SettingsStore(testRedis(), prefix).enableRepo("octo/hello");
  });
  afterAll(async () => proc?.stop());

  it("failure when another pass still holds the PR after the lock wait", async () => {
    await new RunLocks(testRedis(), prefix, 60_000).acquire(threadId({ kind: "reviewer", owner: "octo", repo: "hello", number: 40 }), "another-pass");
    const check = mockReviewCheck("lock0001");
    const done = await opened(proc, 40, "lock0001");
    expect(done.state).toBe("failed");
    expect(check).toEqual([
      expect.objectContaining({
        status: "completed",
        conclusion: "failure",
        output: { title: "Review failed", summary: "Not reviewed: another review pass on this pull request was still running after 1 seconds." },
      }),
    ]);
  });

  it("failure when GET /pulls fails", async () => {
    const check = mockReviewCheck("pull0001");
    nock(API).get("/repos/octo/hello/pulls/41").reply(502, { message: "Server Error" });
    const done = await opened(proc, 41, "pull0001");
    expect(done.state).toBe("failed");
    expect(check).toEqual([
      expect.objectContaining({ conclusion: "failure", output: expect.objectContaining({ summary: expect.stringMatching(/^Not reviewed: GitHub did not return the pull request \(.*Server Error/) }) }),
    ]);
    expect(check[0]!.output.summary).not.toMatch(/\n|at .*\.ts/);
  });

  it("failure when GitHub fails mid-pass: said as an upstream failure once, by the job, its raw text kept out", async () => {
    const check = mockReviewCheck("file0001");
    nock(API).get("/repos/octo/hello/pulls/43").reply(200, pull(43, "file0001"));
    mockNoRepoConfig();
    nock(API).get("/repos/octo/hello/pulls/43/files").query(true).reply(502, { message: "Server Error: upstream connect error or disconnect/reset before headers" });
    const done = await opened(proc, 43, "file0001");
    expect(done.state).toBe("failed");
    expect(check).toEqual([
      expect.objectContaining({
        conclusion: "failure",
        output: expect.objectContaining({ summary: "Not reviewed: the review crashed: an upstream service (GitHub or the model provider) failed (HTTP 502), not a problem with the pull request." }),
      }),
    ]);
  });

  it("failure with the fix when the stored review style is corrupt", async () => {
    await testRedis().set(`${prefix}:review:style:octo/hello`, "{not json");
    try {
      const check = mockReviewCheck("styl0001");
      nock(API).get("/repos/octo/hello/pulls/42").reply(200, pull(42, "styl0001"));
      mockNoRepoConfig();
      const done = await opened(proc, 42, "styl0001");
      expect(done.state).toBe("failed");
      expect(check).toEqual([
        expect.objectContaining({
          conclusion: "failure",
          output: expect.objectContaining({ summary: "Not reviewed: the learned review style stored for octo/hello is corrupt; run `open-swe analyze octo/hello` to rebuild it." }),
        }),
      ]);
    } finally {
      await testRedis().del(`${prefix}:review:style:octo/hello`);
    }
  });

  it("failure naming the problem when the repo config is invalid (and the config check fails too)", async () => {
    installation += 1;
    mockInstallationToken(installation);
    nock(API)
      .get("/repos/octo/hello/collaborators/victor/permission")
      .reply(200, { permission: "write", role_name: "write", user: { login: "victor" } });
    nock(API).get("/repos/octo/hello/pulls/9").reply(200, pull(9, "abc123"));
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(200, "review:\n  auto: sometimes\n  colour: blue\n");
    const configCheck = nock(API)
      .post("/repos/octo/hello/check-runs", (b: CheckBody) => b.name === "Open SWE config" && b.conclusion === "failure" && b.head_sha === "abc123" && /review\.auto/.test(b.output.summary))
      .reply(201, { id: 1 });
    const check = mockReviewCheck("abc123");
    const res = await sendWebhook(proc.port!, {
      event: "issue_comment",
      payload: {
        action: "created",
        installation: { id: installation },
        repository,
        sender: { login: "victor", id: 7, type: "User" },
        issue: { number: 9, id: 9009, pull_request: { url: "x" } },
        comment: { id: 901, body: "@open-swe review", user: { login: "victor", id: 7, type: "User" } },
      },
    });
    const done = await waitForJob(proc.queues.queues.review, deliveryJobId(res.deliveryId));
    expect(done.state).toBe("failed");
    expect(done.failedReason).toMatch(/open-swe.yml is invalid/);
    expect(configCheck.isDone()).toBe(true);
    expect(check).toEqual([
      expect.objectContaining({ conclusion: "failure", output: expect.objectContaining({ summary: expect.stringMatching(/^Not reviewed: \.github\/open-swe\.yml is invalid\n.*review\.auto/s) }) }),
    ]);
  });

  it.each([
    ["a bot-authored PR", 43, { user: { login: "renovate[bot]", type: "Bot" } }, "pull requests by bots are not auto-reviewed"],
    ["a draft", 44, { draft: true }, "draft pull requests are not auto-reviewed"],
    ["a PR closed before its pass ran", 45, { state: "closed" }, "the pull request is closed"],
  ] as const)("neutral with the reason for %s", async (_name, n, o, reason) => {
    const sha = `skip00${n}`;
    const check = mockReviewCheck(sha);
    nock(API)
      .get(`/repos/octo/hello/pulls/${n}`)
      .reply(200, pull(n, sha, o));
    mockNoRepoConfig();
    const done = await opened(proc, n, sha, o);
    expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "skipped", reason } });
    expect(check).toEqual([
      expect.objectContaining({ conclusion: "neutral", output: { title: "Review skipped", summary: `Not reviewed automatically: ${reason}. Comment \`@open-swe review\` to ask for a review.` } }),
    ]);
  });

  it("a second event on a head that already has a published review opens no second check", async () => {
    await new SettingsStore(testRedis(), prefix).setReviewedHead("octo/hello#46", "done0046");
    nock(API).get("/repos/octo/hello/pulls/46").reply(200, pull(46, "done0046"));
    mockNoRepoConfig();
    const done = await opened(proc, 46, "done0046");
    expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "skipped", reason: "this head commit was already reviewed" } });
  });

  it("a head that moved past the event's is checked on the new head; the old check is settled as superseded", async () => {
    const old = mockReviewCheck("old00047");
    const fresh = mockReviewCheck("new00047");
    nock(API)
      .get("/repos/octo/hello/pulls/47")
      .reply(200, pull(47, "new00047", { draft: true }));
    mockNoRepoConfig();
    await opened(proc, 47, "old00047");
    expect(old).toEqual([expect.objectContaining({ conclusion: "neutral", output: expect.objectContaining({ summary: expect.stringMatching(/^Superseded: .* new0004/) }) })]);
    expect(fresh).toEqual([expect.objectContaining({ conclusion: "neutral", output: expect.objectContaining({ summary: expect.stringMatching(/draft/) }) })]);
  });
});

describe("who gets an automatic review", () => {
  let proc: RunningProcess;
  let prefix: string;
  beforeAll(async () => {
    prefix = uniquePrefix();
    proc = await startTestProcess("all", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, JOB_ATTEMPTS: "1" });
  });
  afterAll(async () => proc?.stop());

  it("a PR opened in a repo that is not enabled queues nothing; once enabled, it queues one pass", async () => {
    const payload = (n: number) => ({ action: "opened", installation: { id: 77 }, repository, sender: { login: "bob", id: 8, type: "User" }, pull_request: pull(n, `gate00${n}`) });
    expect((await sendWebhook(proc.port!, { event: "pull_request", payload: payload(50) })).status).toBe(200);
    await proc.queues.queues.review.pause();
    try {
      await new SettingsStore(testRedis(), prefix).enableRepo("octo/hello");
      expect((await sendWebhook(proc.port!, { event: "pull_request", payload: payload(51) })).status).toBe(200);
      // A webhook's job reaches BullMQ through the intake pump, after the 200, in the order they came:
      // once the second is there, the first (not enabled then) would be too had it queued anything.
      await jobAppears(proc.queues.queues.review, reviewJobId(threadId({ kind: "reviewer", owner: "octo", repo: "hello", number: 51 }), "gate0051", "opened"));
      expect(await proc.queues.queues.review.getJob(reviewJobId(threadId({ kind: "reviewer", owner: "octo", repo: "hello", number: 50 }), "gate0050", "opened"))).toBeUndefined();
      expect(await proc.queues.queues.review.count()).toBe(1);
      await proc.queues.queues.review.obliterate({ force: true });
    } finally {
      await proc.queues.queues.review.resume();
    }
  });

  it("an author who opted out gets a neutral check saying so, not a review", async () => {
    const settings = new SettingsStore(testRedis(), prefix);
    await settings.enableRepo("octo/hello");
    await settings.setProfile("olga", { autoReview: false });
    const check = mockReviewCheck("optout52");
    nock(API)
      .get("/repos/octo/hello/pulls/52")
      .reply(200, pull(52, "optout52", { user: { login: "olga", type: "User" } }));
    mockNoRepoConfig();
    const done = await opened(proc, 52, "optout52", { user: { login: "olga", type: "User" } });
    expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "skipped", reason: "the author opted out of auto-review" } });
    expect(check).toEqual([expect.objectContaining({ conclusion: "neutral", output: expect.objectContaining({ summary: expect.stringMatching(/opted out/) }) })]);
  });
});
