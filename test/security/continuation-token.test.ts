import { ownerJobId } from "../../src/threads/run-owner.js";
import { writeFileSync } from "node:fs";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryJobId, jobId } from "../../src/queue/job-ids.js";
import { SecretBox } from "../../src/store/secret-box.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { UserTokens } from "../../src/store/user-tokens.js";
import { RunLocks } from "../../src/threads/run-lock.js";
import { threadId } from "../../src/shared/thread-id.js";
import { API, runStartMocks } from "../helpers/approval-run.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { issueCommentPayload, mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { waitForJob, findJob } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";

const KEY = "5".repeat(64);
const PR_URL = "https://github.com/octo/hello/pull/31";

/** Asks before `execute`; once approved, writes, pushes and opens the PR. */
const script = [
  { tool_calls: [{ name: "execute", args: { command: "echo checked" } }] },
  { tool_calls: [{ name: "write_file", args: { file_path: "/workspace/NOTES.md", content: "notes\n" } }] },
  { tool_calls: [{ name: "commit_and_push", args: { message: "Add NOTES.md" } }] },
  { tool_calls: [{ name: "open_or_update_pull_request", args: { title: "Add NOTES.md", body: "Adds notes." } }] },
  { tool_calls: [{ name: "github_comment", args: { body: `Opened ${PR_URL}` } }] },
  { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] },
];

describe("security: a person continuing someone else's run acts as themselves", () => {
  let app: E2eApp;
  beforeAll(async () => {
    app = await startE2eApp(makeBareRemote("octo", "hello").template, "continuation", { OPEN_SWE_SECRET_KEY: KEY, GITHUB_CLIENT_ID: "Iv1.x", GITHUB_CLIENT_SECRET: "s" });
    // dana opens PRs as herself: her sealed token is there for the worker to use on her runs.
    await new SettingsStore(testRedis(), app.prefix).setProfile("dana", { prsAsMe: true });
    await new UserTokens(testRedis(), app.prefix, new SecretBox(KEY)).save("dana", { accessToken: "ghu_dana_own_token", expiresAt: Date.now() + 86400_000 });
  });
  afterAll(async () => app?.stop());

  it("erin approves dana's paused run: the resumed run opens its PR with the app's token, never dana's", async () => {
    writeFileSync(app.replay, JSON.stringify(script));
    mockInstallationToken(7301, 2);
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    runStartMocks(301);
    nock(API)
      .post("/repos/octo/hello/issues/6/comments", (b) => /Approval needed/.test(b.body))
      .reply(201, { id: 950 });
    const asked = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 7301, number: 6, issueId: 6006, commentId: 301, body: "@open-swe add notes" }),
    });
    const paused = await waitForJob(app.proc.queues.queues.agent, deliveryJobId(asked.deliveryId), 60_000);
    expect(paused.returnvalue).toMatchObject({ outcome: "awaiting_approval" });
    const id = (paused.returnvalue as { approvalId: string }).approvalId;

    nock(API).get("/repos/octo/hello/collaborators/erin/permission").reply(200, { permission: "write", role_name: "write" });
    runStartMocks(301);
    nock(API).get("/repos/octo/hello/pulls").query(true).reply(200, []);
    const pr = nock(API).post("/repos/octo/hello/pulls").matchHeader("authorization", "token ghs_test_installation_token").reply(201, { number: 31, html_url: PR_URL });
    nock(API)
      .post("/repos/octo/hello/issues/6/comments", { body: `Opened ${PR_URL}` })
      .reply(201, { id: 951 });
    nock(API).patch("/repos/octo/hello/issues/comments/951").reply(200, { id: 951 });
    const approved = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 7301, number: 6, issueId: 6006, commentId: 302, login: "erin", userId: 44, body: `@open-swe approve ${id}` }),
    });
    expect((await waitForJob(app.proc.queues.queues.command, deliveryJobId(approved.deliveryId))).returnvalue).toMatchObject({ outcome: "approval_approved" });
    const resumed = await waitForJob(app.proc.queues.queues.agent, jobId("approval", id), 60_000);
    expect(resumed.failedReason).toBeUndefined();
    expect(resumed.returnvalue).toMatchObject({ outcome: "pr_opened", prUrl: PR_URL });
    expect(pr.isDone()).toBe(true);
    // The resumed job is signed as erin, through GitHub.
    expect((await findJob(app.proc.queues.queues.agent, jobId("approval", id)))?.data.provenance).toMatchObject({ via: "github-webhook", principal: { login: "erin" } });
  });

  it("erin's message joins dana's running run: from then on the run opens its PR with the app's token", async () => {
    const busy = [
      { tool_calls: [{ name: "execute", args: { command: "sleep 3; echo looked" } }] },
      { tool_calls: [{ name: "write_file", args: { file_path: "/workspace/TODO.md", content: "todo\n" } }] },
      { tool_calls: [{ name: "commit_and_push", args: { message: "Add TODO.md" } }] },
      { tool_calls: [{ name: "open_or_update_pull_request", args: { title: "Add TODO.md", body: "Adds a todo list." } }] },
      { tool_calls: [{ name: "github_comment", args: { body: "Opened https://github.com/octo/hello/pull/32" } }] },
      { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] },
    ];
    writeFileSync(app.replay, JSON.stringify(busy));
    // Asked afresh (not what the case above cached): dana's now, erin's when she writes.
    for (const k of await testRedis().keys(`${app.prefix}:perm*`)) await testRedis().del(k);
    mockInstallationToken(7302, 2);
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main", full_name: "octo/hello" });
    nock(API).post("/repos/octo/hello/issues/comments/401/reactions").reply(201, {});
    nock(API).get("/repos/octo/hello/pulls").query(true).reply(200, []);
    const pr = nock(API)
      .post("/repos/octo/hello/pulls")
      .matchHeader("authorization", "token ghs_test_installation_token")
      .reply(201, { number: 32, html_url: "https://github.com/octo/hello/pull/32" });
    nock(API).post("/repos/octo/hello/issues/9/comments").reply(201, { id: 961 });
    nock(API).patch("/repos/octo/hello/issues/comments/961").reply(200, { id: 961 });
    const asked = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 7302, number: 9, issueId: 9009, commentId: 401, body: "@open-swe add a todo list" }),
    });
    const thread = threadId({ kind: "issue", issueId: 9009 });
    const locks = new RunLocks(testRedis(), app.prefix, 60_000);
    for (let i = 0; ownerJobId((await locks.holder(thread)) ?? "") !== deliveryJobId(asked.deliveryId); i++) {
      if (i > 1000) throw new Error("dana's run never took its thread");
      await new Promise((r) => setTimeout(r, 10));
    }
    // erin writes while dana's run holds the thread: her message becomes a follow-up the run reads.
    nock(API).get("/repos/octo/hello/collaborators/erin/permission").reply(200, { permission: "write", role_name: "write" });
    const joined = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 7302, number: 9, issueId: 9009, commentId: 402, login: "erin", userId: 44, body: "@open-swe also list the docs" }),
    });
    expect((await waitForJob(app.proc.queues.queues.agent, deliveryJobId(joined.deliveryId), 30_000)).returnvalue).toMatchObject({ outcome: "follow_up" });
    const done = await waitForJob(app.proc.queues.queues.agent, deliveryJobId(asked.deliveryId), 60_000);
    expect(done.failedReason).toBeUndefined();
    expect(done.returnvalue).toMatchObject({ outcome: "pr_opened" });
    expect(pr.isDone()).toBe(true);
  });
});
