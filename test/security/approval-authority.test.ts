import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunIndex } from "../../src/store/run-index.js";
import { ApprovalStore } from "../../src/approvals/approval-store.js";
import { deliveryJobId, jobId } from "../../src/queue/job-ids.js";
import { API, pausedRun, runStartMocks, toolMessages } from "../helpers/approval-run.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { issueCommentPayload, mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob, findJob } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";

/**
 * Who may decide a paused run's tool call: its requester or a writer of the same repository. A reader's
 * `approve`, and a writer of another repository naming the id, change nothing; nobody deciding denies it.
 */
describe("security: approval decisions", () => {
  let app: E2eApp;
  beforeAll(async () => {
    app = await startE2eApp(makeBareRemote("octo", "hello").template, "approval-authority");
  });
  afterAll(async () => app?.stop());

  it("a reader's approve is refused with one reply, another repo's writer cannot name the id, and the timeout denies", async () => {
    mockInstallationToken(7201, 2);
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    const { id, thread } = await pausedRun(app, { installationId: 7201, number: 7, issueId: 7007, commentId: 121, reply: "Went on without it.", requestCommentId: 920 });
    const store = new ApprovalStore(testRedis(), app.prefix, 60_000);

    nock(API).get("/repos/octo/hello/collaborators/mallory/permission").reply(200, { permission: "read", role_name: "read" });
    const refusal = nock(API)
      .post("/repos/octo/hello/issues/7/comments", (b) => b.body.includes("Only @dana") && b.body.includes(id))
      .reply(201, { id: 921 });
    const reader = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 7201, number: 7, issueId: 7007, commentId: 122, login: "mallory", userId: 66, body: `@open-swe approve ${id}` }),
    });
    expect((await waitForJob(app.proc.queues.queues.command, deliveryJobId(reader.deliveryId))).returnvalue).toMatchObject({ outcome: "approval_refused" });
    expect(refusal.isDone()).toBe(true);
    expect(await store.resolution(id)).toBeNull();
    expect(await findJob(app.proc.queues.queues.agent, jobId("approval", id))).toBeUndefined();

    // eve can write to octo/other, not to octo/hello: the id is unknown there, and she is never asked about.
    const elsewhere = issueCommentPayload({ installationId: 7201, number: 3, issueId: 3003, commentId: 123, login: "eve", userId: 67, body: `@open-swe approve ${id}` });
    elsewhere.repository = { name: "other", full_name: "octo/other", owner: { login: "octo" } };
    const unknown = nock(API)
      .post("/repos/octo/other/issues/3/comments", (b) => b.body.includes(`no approval request \`${id}\``))
      .reply(201, { id: 924 });
    const other = await sendWebhook(app.proc.port!, { event: "issue_comment", payload: elsewhere });
    expect((await waitForJob(app.proc.queues.queues.command, deliveryJobId(other.deliveryId))).returnvalue).toMatchObject({ outcome: "approval_unknown" });
    expect(unknown.isDone()).toBe(true);
    expect(await store.resolution(id)).toBeNull();

    // Nobody decides: the delayed timeout job fires (promoted here instead of waiting an hour) and denies.
    runStartMocks(121);
    nock(API).post("/repos/octo/hello/issues/7/comments", { body: "Went on without it." }).reply(201, { id: 925 });
    nock(API).patch("/repos/octo/hello/issues/comments/925").reply(200, { id: 925 });
    const timeout = await app.proc.queues.queues.command.getJob(jobId("approval-timeout", id));
    await timeout!.promote();
    expect((await waitForJob(app.proc.queues.queues.command, jobId("approval-timeout", id))).returnvalue).toMatchObject({ outcome: "approval_timed_out" });
    const resumed = await waitForJob(app.proc.queues.queues.agent, jobId("approval", id), 60_000);
    expect(resumed.failedReason).toBeUndefined();
    expect(await toolMessages(app.prefix, thread, "execute")).toEqual([expect.stringMatching(/^Denied automatically: nobody approved this call within 60 minutes/)]);
    expect(await store.resolution(id)).toMatchObject({ decision: "reject", by: null, how: "timeout" });
    // The paused run is marked resolved by the timeout (nobody), linking the run it resumed.
    expect(await new RunIndex(testRedis(), app.prefix).get((await store.get(id))!.runId!)).toMatchObject({
      status: "approval_resolved",
      approval: { decision: "reject", by: null, resumedRunId: jobId("approval", id) },
    });

    // A decision after the timeout is told so, once.
    const late = nock(API)
      .post("/repos/octo/hello/issues/7/comments", (b) => b.body.includes("already denied automatically"))
      .reply(201, { id: 926 });
    const after = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 7201, number: 7, issueId: 7007, commentId: 127, body: `@open-swe approve ${id}` }),
    });
    expect((await waitForJob(app.proc.queues.queues.command, deliveryJobId(after.deliveryId))).returnvalue).toMatchObject({ outcome: "approval_already_decided" });
    expect(late.isDone()).toBe(true);
  });
});
