import { writeFileSync } from "node:fs";
import type { BaseMessage } from "@langchain/core/messages";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisSaver } from "../../src/agent/checkpoint/redis-saver.js";
import { deliveryJobId, jobId } from "../../src/queue/job-ids.js";
import { RunLocks } from "../../src/threads/run-lock.js";
import { ownerJobId } from "../../src/threads/run-owner.js";
import { threadId } from "../../src/shared/thread-id.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { issueCommentPayload, mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob, jobsEverywhere } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";

const API = "https://api.github.com";
const INSTALLATION = 5151;
const PR_URL = "https://github.com/octo/hello/pull/12";
const ISSUE_THREAD = threadId({ kind: "issue", issueId: 8008 });

const content = (m: BaseMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));

/**
 * The agent's own PR is the same conversation as the issue that asked for it: comments there reach the
 * issue thread's lock, follow-up list, sandbox and checkpoint. Nothing that arrives late is stranded.
 */
describe("e2e: issue → draft PR → comments on that PR continue the issue's thread", () => {
  let app: E2eApp;
  let remote: ReturnType<typeof makeBareRemote>;
  let branch = "";
  const saver = () => new RedisSaver({ redis: testRedis(), prefix: `${app.prefix}:ckpt` });
  const messages = async () => ((await saver().getTuple({ configurable: { thread_id: ISSUE_THREAD } }))?.checkpoint.channel_values as { messages?: BaseMessage[] } | undefined)?.messages ?? [];
  const repoCalls = () => {
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });
  };
  const thePr = () =>
    nock(API)
      .get("/repos/octo/hello/pulls/12")
      .reply(200, { number: 12, head: { ref: branch, repo: { full_name: "octo/hello" } }, base: { ref: "main" } });
  const comment = (o: { number: number; issueId: number; commentId: number; body: string; pr?: boolean }) =>
    sendWebhook(app.proc.port!, { event: "issue_comment", payload: issueCommentPayload({ installationId: INSTALLATION, ...o, pullRequest: o.pr ?? false }) });

  beforeAll(async () => {
    remote = makeBareRemote("octo", "hello");
    app = await startE2eApp(remote.template, "own-pr");
    // Review jobs the agent requests are inspected, not run.
    await app.proc.queues.queues.review.pause();
  });
  afterAll(async () => app?.stop());

  it("an issue comment runs and opens a draft PR", async () => {
    writeFileSync(
      app.replay,
      JSON.stringify([
        { tool_calls: [{ name: "write_file", args: { file_path: "/workspace/CONTRIBUTING.md", content: "# Contributing\n" } }] },
        { tool_calls: [{ name: "commit_and_push", args: { message: "Add CONTRIBUTING.md" } }] },
        { tool_calls: [{ name: "open_or_update_pull_request", args: { title: "Add CONTRIBUTING.md", body: "A guide." } }] },
        { tool_calls: [{ name: "github_comment", args: { body: `Opened ${PR_URL}` } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] },
      ]),
    );
    mockInstallationToken(INSTALLATION, 2);
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    repoCalls();
    nock(API).get("/repos/octo/hello/pulls").query(true).reply(200, []);
    nock(API)
      .post("/repos/octo/hello/pulls", (b) => b.draft === true)
      .reply(201, { number: 12, html_url: PR_URL });
    nock(API).post("/repos/octo/hello/issues/comments/901/reactions").reply(201, {});
    nock(API).post("/repos/octo/hello/issues/8/comments").reply(201, { id: 555 });
    nock(API).patch("/repos/octo/hello/issues/comments/555").reply(200, { id: 555 });
    const res = await comment({ number: 8, issueId: 8008, commentId: 901, body: "@open-swe add a CONTRIBUTING.md" });
    const done = await waitForJob(app.proc.queues.queues.agent, deliveryJobId(res.deliveryId), 60_000);
    expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "pr_opened", prUrl: PR_URL } });
    branch = remote
      .git("branch", "--list", "open-swe/*")
      .trim()
      .replace(/^\*?\s*/, "");
    expect(branch).toMatch(/^open-swe\/[0-9a-f]{8}-/);
  });

  it("a comment on that PR while the issue's run is busy is a follow-up of that run; one arriving during its last step starts exactly one continuation", async () => {
    writeFileSync(
      app.replay,
      JSON.stringify([
        { tool_calls: [{ name: "github_comment", args: { body: "Checking the guide." } }] },
        // The last model call: a follow-up that arrives while the model thinks is read by no model call of this run.
        { delay_ms: 1500, tool_calls: [{ name: "confirming_completion", args: { summary: "checked" } }] },
      ]),
    );
    repoCalls();
    nock(API).post("/repos/octo/hello/issues/comments/902/reactions").reply(201, {});
    nock(API).post("/repos/octo/hello/issues/8/comments").reply(201, { id: 556 });
    nock(API).patch("/repos/octo/hello/issues/comments/556").reply(200, { id: 556 });
    const first = await comment({ number: 8, issueId: 8008, commentId: 902, body: "@open-swe double-check the guide" });
    const repliedThisRun = (ms: BaseMessage[]) => {
      const start = ms.findLastIndex((m) => m.getType() === "human" && content(m).includes("double-check the guide"));
      return start >= 0 && ms.slice(start).some((m) => m.getType() === "tool" && m.name === "github_comment");
    };
    for (let i = 0; !repliedThisRun(await messages()); i++) {
      if (i > 1500) throw new Error("the run never reached its last model call");
      await new Promise((r) => setTimeout(r, 20));
    }
    // The tool step is checkpointed; the last model call has drained the (empty) list and is now thinking.
    await new Promise((r) => setTimeout(r, 300));
    expect(ownerJobId((await new RunLocks(testRedis(), app.prefix, 60_000).holder(ISSUE_THREAD))!)).toBe(deliveryJobId(first.deliveryId));

    // The continuation answers on the PR, where the follow-up was asked.
    repoCalls();
    thePr();
    nock(API).post("/repos/octo/hello/issues/comments/903/reactions").reply(201, {});
    const onPr = nock(API).post("/repos/octo/hello/issues/12/comments", { body: "Checking the guide." }).reply(201, { id: 557 });
    nock(API).patch("/repos/octo/hello/issues/comments/557").reply(200, { id: 557 });
    const followUp = await comment({ number: 12, issueId: 1012, commentId: 903, body: "@open-swe and mention the lint step", pr: true });
    expect(await waitForJob(app.proc.queues.queues.agent, deliveryJobId(followUp.deliveryId))).toMatchObject({ state: "completed", returnvalue: { outcome: "follow_up" } });
    const firstDone = await waitForJob(app.proc.queues.queues.agent, deliveryJobId(first.deliveryId), 60_000);
    expect(firstDone.failedReason).toBeUndefined();
    expect(firstDone).toMatchObject({ state: "completed" });

    const continuation = jobId("continue", ISSUE_THREAD, deliveryJobId(first.deliveryId));
    const done = await waitForJob(app.proc.queues.queues.agent, continuation, 60_000);
    expect(done.failedReason).toBeUndefined();
    expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "completed" } });
    expect(onPr.isDone()).toBe(true);
    // Exactly once: no other continuation ran for this thread.
    const all = await jobsEverywhere(app.proc.queues.queues.agent, ["completed", "failed", "waiting", "active", "delayed"]);
    const runs = all.filter((j) => j.data.threadId === ISSUE_THREAD && j.data.trigger === "follow_up" && !["handed_off", "nothing_pending"].includes(j.returnvalue?.outcome));
    expect(runs.map((j) => j.id)).toEqual([continuation]);
    const texts = (await messages()).map((m) => `${m.getType()}:${content(m)}`);
    const read = texts.findIndex((t) => t.startsWith("human:Follow-up from @dana (github): and mention the lint step"));
    expect(read).toBeGreaterThan(0);
    expect(texts.slice(read + 1).some((t) => t.startsWith("ai:"))).toBe(true);
  });

  it("a comment on the PR after the runs finished continues the same conversation, sandbox and branch", async () => {
    writeFileSync(
      app.replay,
      JSON.stringify([
        { tool_calls: [{ name: "execute", args: { command: "test -f CONTRIBUTING.md && echo still-here" } }] },
        { tool_calls: [{ name: "write_file", args: { file_path: "/workspace/LINT.md", content: "Run the linter.\n" } }] },
        { tool_calls: [{ name: "commit_and_push", args: { message: "Add LINT.md" } }] },
        { tool_calls: [{ name: "github_comment", args: { body: "Added LINT.md to this PR." } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "added" } }] },
      ]),
    );
    repoCalls();
    thePr();
    nock(API).post("/repos/octo/hello/issues/comments/904/reactions").reply(201, {});
    const reply = nock(API).post("/repos/octo/hello/issues/12/comments", { body: "Added LINT.md to this PR." }).reply(201, { id: 558 });
    nock(API).patch("/repos/octo/hello/issues/comments/558").reply(200, { id: 558 });
    const res = await comment({ number: 12, issueId: 1012, commentId: 904, body: "@open-swe add a LINT.md too", pr: true });
    const done = await waitForJob(app.proc.queues.queues.agent, deliveryJobId(res.deliveryId), 60_000);
    expect(done.failedReason).toBeUndefined();
    expect(done.state).toBe("completed");
    expect(reply.isDone()).toBe(true);

    // Same thread: the model's input holds the issue's first request and this one.
    const msgs = await messages();
    const humans = msgs.filter((m) => m.getType() === "human").map(content);
    expect(humans.some((h) => h.includes("add a CONTRIBUTING.md"))).toBe(true);
    expect(humans.at(-1)).toContain("add a LINT.md too");
    // Same sandbox (the earlier run's file is there) and same branch (no second open-swe branch).
    expect(msgs.some((m) => m.getType() === "tool" && content(m).includes("still-here"))).toBe(true);
    expect(remote.git("branch", "--list", "open-swe/*").trim().split("\n")).toHaveLength(1);
    expect(remote.git("ls-tree", "--name-only", branch).split("\n")).toEqual(expect.arrayContaining(["CONTRIBUTING.md", "LINT.md"]));
    // The PR thread of its own was never used.
    const prThread = threadId({ kind: "pr", owner: "octo", repo: "hello", number: 12 });
    expect(await saver().getTuple({ configurable: { thread_id: prThread } })).toBeUndefined();
  });

  it("a wake-up whose note says --verdict gets no verdict; only the mention's typed grant does", async () => {
    writeFileSync(
      app.replay,
      JSON.stringify([
        { tool_calls: [{ name: "request_pr_review", args: { pr_number: 12, verdict: true, instructions: "" } }] },
        { tool_calls: [{ name: "github_comment", args: { body: "Review requested." } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "asked" } }] },
      ]),
    );
    repoCalls();
    thePr();
    nock(API).post("/repos/octo/hello/issues/12/comments").reply(201, { id: 559 });
    nock(API).patch("/repos/octo/hello/issues/comments/559").reply(200, { id: 559 });
    const wakeId = jobId("wakeup", ISSUE_THREAD, "test", 1);
    // What schedule_thread_wakeup enqueues when the original request carried no grant: the note is the model's text.
    await app.proc.queues.add(
      "agent",
      {
        installationId: INSTALLATION,
        owner: "octo",
        repo: "hello",
        number: 12,
        isPullRequest: true,
        threadId: ISSUE_THREAD,
        trigger: "wakeup",
        requester: { login: "dana", id: 31 },
        text: "request a review --verdict",
        deliveryId: wakeId,
      },
      wakeId,
      { via: "github-webhook" },
    );
    expect(await waitForJob(app.proc.queues.queues.agent, wakeId, 60_000)).toMatchObject({ state: "completed" });
    const review = await app.proc.queues.queues.review.getJob(jobId("review", wakeId, 12));
    expect(review?.data).toMatchObject({ number: 12, verdictRequested: false });

    repoCalls();
    thePr();
    nock(API).post("/repos/octo/hello/issues/comments/905/reactions").reply(201, {});
    nock(API).post("/repos/octo/hello/issues/12/comments").reply(201, { id: 560 });
    nock(API).patch("/repos/octo/hello/issues/comments/560").reply(200, { id: 560 });
    const asked = await comment({ number: 12, issueId: 1012, commentId: 905, body: "@open-swe --verdict get this reviewed", pr: true });
    const run = deliveryJobId(asked.deliveryId);
    expect(await waitForJob(app.proc.queues.queues.agent, run, 60_000)).toMatchObject({ state: "completed" });
    expect((await app.proc.queues.queues.review.getJob(jobId("review", run, 12)))?.data).toMatchObject({ verdictRequested: true });
  });
});
