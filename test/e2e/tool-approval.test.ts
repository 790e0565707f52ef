import type { BaseMessage } from "@langchain/core/messages";
import nock from "nock";
import { RedisSaver } from "../../src/agent/checkpoint/redis-saver.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalStore } from "../../src/approvals/approval-store.js";
import { deliveryJobId, jobId } from "../../src/queue/job-ids.js";
import { RunEvents } from "../../src/observability/run-events.js";
import { RunRecords } from "../../src/store/run-records.js";
import { threadId } from "../../src/shared/thread-id.js";
import { writeFileSync } from "node:fs";
import { API, pausedRun, runStartMocks, SECRET, toolMessages } from "../helpers/approval-run.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { issueCommentPayload, mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";

const METRICS_TOKEN = "metrics-token-for-the-e2e-test";

async function scrape(port: number, token?: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  return { status: res.status, body: await res.text() };
}

describe("e2e: an `ask` tool pauses the run until a person decides", () => {
  let app: E2eApp;
  beforeAll(async () => {
    app = await startE2eApp(makeBareRemote("octo", "hello").template, "approval", { METRICS_TOKEN: METRICS_TOKEN, JOB_ATTEMPTS: "2" });
  });
  afterAll(async () => app?.stop());

  it("pauses before `execute`, posts a masked request; a writer's `approve` through a signed webhook resumes it to completion", async () => {
    mockInstallationToken(7101, 2);
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    const { id, request, thread } = await pausedRun(app, { installationId: 7101, number: 5, issueId: 5005, commentId: 101, reply: "Wrote proof.txt.", requestCommentId: 900 });
    expect(request).toContain("`execute`");
    expect(request).toContain(`@open-swe approve ${id}`);
    expect(request).toContain(`@open-swe deny ${id}`);
    expect(request).toContain("within 60 minutes");
    expect(request).not.toContain(SECRET);
    expect(request).toContain("GH_TOKEN=***");
    // Nothing ran yet, and the timeout is a delayed job of APPROVAL_TIMEOUT_MINUTES.
    expect(await toolMessages(app.prefix, thread, "execute")).toEqual([]);
    const timeout = await app.proc.queues.queues.command.getJob(jobId("approval-timeout", id));
    expect(await timeout?.getState()).toBe("delayed");
    expect(timeout?.opts.delay).toBe(60 * 60_000);

    // erin is not the requester but can write: her approval resumes the run.
    nock(API).get("/repos/octo/hello/collaborators/erin/permission").reply(200, { permission: "write", role_name: "write" });
    runStartMocks(101);
    const done = nock(API).post("/repos/octo/hello/issues/5/comments", { body: "Wrote proof.txt." }).reply(201, { id: 901 });
    nock(API).patch("/repos/octo/hello/issues/comments/901").reply(200, { id: 901 });
    const res = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 7101, number: 5, issueId: 5005, commentId: 102, login: "erin", userId: 44, body: `@open-swe approve ${id}` }),
    });
    expect(res.status).toBe(200);
    const decided = await waitForJob(app.proc.queues.queues.command, deliveryJobId(res.deliveryId));
    expect(decided.returnvalue).toMatchObject({ outcome: "approval_approved", approvalId: id });
    const resumed = await waitForJob(app.proc.queues.queues.agent, jobId("approval", id), 60_000);
    expect(resumed.failedReason).toBeUndefined();
    expect(resumed.returnvalue).toMatchObject({ outcome: "completed" });
    expect(done.isDone()).toBe(true);
    expect(await toolMessages(app.prefix, thread, "execute")).toEqual([expect.stringContaining("approved")]);
    expect(await app.proc.queues.queues.command.getJob(jobId("approval-timeout", id))).toBeUndefined();
    const record = await new RunRecords(testRedis(), app.prefix).get(jobId("approval", id));
    expect(record).toMatchObject({ trigger: "approval", outcome: "completed", toolCounts: { execute: 1, github_comment: 1 } });
    const resolution = await new ApprovalStore(testRedis(), app.prefix, 60_000).resolution(id);
    expect(resolution).toMatchObject({ decision: "approve", by: "erin", how: "person" });
    expect(resolution!.latencyMs).toBeGreaterThan(0);

    // The run's events are in the capped stream, in order.
    const events = (await new RunEvents(testRedis(), app.prefix).recent(50)).reverse();
    const types = events.map((e) => e.type);
    expect(types.indexOf("approval.requested")).toBeGreaterThan(types.indexOf("run.started"));
    expect(events.find((e) => e.type === "approval.resolved")).toMatchObject({ approvalId: id, decision: "approve", how: "person", by: "erin" });
    expect(events.find((e) => e.type === "tool.executed" && e.name === "execute")).toMatchObject({ server: "", status: "success" });
    expect(events.filter((e) => e.type === "run.completed")).toEqual([
      expect.objectContaining({
        runId: jobId("approval", id),
        status: "completed",
        trigger: "approval",
        toolCounts: expect.objectContaining({ execute: 1 }),
        // Seed 004's completion fields.
        provider: "replay",
        mode: "task",
        messageCount: expect.any(Number),
        title: "write the proof file",
        firstUserMessage: "write the proof file",
        subagentIds: [],
        branches: { head: expect.stringMatching(/^open-swe\//), base: "main" },
      }),
    ]);
    expect((events.find((e) => e.type === "run.completed") as { messageCount: number }).messageCount).toBeGreaterThan(4);

    // GET /metrics: the token is required, and the run's counters are there.
    expect((await scrape(app.proc.port!)).status).toBe(401);
    expect((await scrape(app.proc.port!, "wrong-token-of-the-same-length!")).status).toBe(401);
    const { status, body } = await scrape(app.proc.port!, METRICS_TOKEN);
    expect(status).toBe(200);
    expect(body).toMatch(/^open_swe_runs_total\{outcome="completed",trigger="approval"\} 1$/m);
    expect(body).toMatch(/^open_swe_tokens_total\{model="[^"]+",kind="input"\} \d+$/m);
    expect(body).toMatch(/^open_swe_tool_duration_seconds_count\{tool="execute",server="",status="success"\} 1$/m);
    expect(body).toMatch(/^open_swe_approval_latency_seconds_count\{decision="approve",how="person"\} 1$/m);
    expect(body).toMatch(/^open_swe_approvals_requested_total 1$/m);
    expect(body).toMatch(/^open_swe_queue_jobs\{queue="agent",state="failed"\} 0$/m);
    expect(body).toMatch(/^open_swe_queue_jobs\{queue="command",state="delayed"\} 0$/m);
    expect(body).toMatch(/^open_swe_job_duration_seconds_count\{queue="agent",result="completed"\} 2$/m);
  });

  it("the requester's `deny <id> <reason>` is honoured: the call never runs and the model reads why", async () => {
    const { id, thread } = await pausedRun(app, { installationId: 7101, number: 6, issueId: 6006, commentId: 111, reply: "Skipped the proof file.", requestCommentId: 910 });
    runStartMocks(111);
    nock(API).post("/repos/octo/hello/issues/6/comments", { body: "Skipped the proof file." }).reply(201, { id: 911 });
    nock(API).patch("/repos/octo/hello/issues/comments/911").reply(200, { id: 911 });
    // A new request on the paused thread waits as a follow-up instead of starting a second run.
    const more = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 7101, number: 6, issueId: 6006, commentId: 113, body: "@open-swe also mention it in the README" }),
    });
    expect((await waitForJob(app.proc.queues.queues.agent, deliveryJobId(more.deliveryId))).returnvalue).toMatchObject({ outcome: "awaiting_approval_follow_up" });
    // dana asked for the run: no permission lookup (none is mocked) for her decision.
    const res = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 7101, number: 6, issueId: 6006, commentId: 112, body: `@open-swe deny ${id} not on the shared runner` }),
    });
    expect((await waitForJob(app.proc.queues.queues.command, deliveryJobId(res.deliveryId))).returnvalue).toMatchObject({ outcome: "approval_denied" });
    const resumed = await waitForJob(app.proc.queues.queues.agent, jobId("approval", id), 60_000);
    expect(resumed.failedReason).toBeUndefined();
    expect(await toolMessages(app.prefix, thread, "execute")).toEqual(["Denied by @dana: not on the shared runner. Continue without this call."]);
    // The resumed run read the follow-up that waited.
    const saver = new RedisSaver({ redis: testRedis(), prefix: `${app.prefix}:ckpt` });
    const messages = ((await saver.getTuple({ configurable: { thread_id: thread } }))?.checkpoint.channel_values as { messages: BaseMessage[] }).messages;
    expect(messages.some((m) => m.getType() === "human" && String(m.content).includes("also mention it in the README"))).toBe(true);
  });

  it("a paused job retried after its request could not be posted pauses again on the same approval, not a second one", async () => {
    writeFileSync(app.replay, JSON.stringify([{ tool_calls: [{ name: "execute", args: { command: "true" } }] }, { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] }]));
    runStartMocks(141);
    runStartMocks(141, { reaction: false });
    const bodies: string[] = [];
    nock(API).post("/repos/octo/hello/issues/11/comments").reply(502, { message: "Bad Gateway" });
    nock(API)
      .post("/repos/octo/hello/issues/11/comments")
      .reply(201, (_u, b) => (bodies.push((b as { body: string }).body), { id: 941 }));
    const res = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 7101, number: 11, issueId: 1111, commentId: 141, body: "@open-swe run true" }),
    });
    const paused = await waitForJob(app.proc.queues.queues.agent, deliveryJobId(res.deliveryId), 60_000);
    expect(paused).toMatchObject({ state: "completed", returnvalue: { outcome: "awaiting_approval" } });
    const id = (paused.returnvalue as { approvalId: string }).approvalId;
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toContain(`approve ${id}`);
    // One timeout, for this approval (the earlier tests' were removed by their decisions): no orphan.
    const timeouts = (await app.proc.queues.queues.command.getDelayed()).filter((j) => j.data.command === "approval_timeout");
    expect(timeouts.map((j) => j.id)).toEqual([jobId("approval-timeout", id)]);
    expect(await new ApprovalStore(testRedis(), app.prefix, 60_000).pendingFor(threadId({ kind: "issue", issueId: 1111 }))).toBe(id);
  });
});
