import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalStore } from "../../../src/approvals/approval-store.js";
import type { PendingApproval } from "../../../src/threads/approvals.js";
import type { RunningProcess } from "../../../src/main.js";
import { jobId } from "../../../src/queue/job-ids.js";
import { AgentJob } from "../../../src/queue/schemas.js";
import { sourceApprovalChannel } from "../../../src/sources/source-approval.js";
import { slackClient } from "../../../src/sources/slack/slack-client.js";
import { createLogger } from "../../../src/logger.js";
import { SettingsStore } from "../../../src/store/settings-store.js";
import { threadId } from "../../../src/shared/thread-id.js";
import { mockInstallationToken } from "../../helpers/github-app.js";
import { waitForJob, findJob } from "../../helpers/jobs.js";
import { redisUrl, testRedis, uniquePrefix } from "../../helpers/redis.js";
import { startTestProcess } from "../../helpers/test-process.js";
import { clickBody, CHANNEL, REQUEST_TS, TEAM, THREAD } from "./slack-click.js";
import { SLACK, SLACK_SECRET, signSlack } from "./slack-fixture.js";
import { slackBody } from "../../contracts/slack-contract.js";

const API = "https://api.github.com";
type Form = Record<string, string>;
const threadKey = `slack:${TEAM}:${CHANNEL}:${THREAD}`;

const formHeaders = (body: string) => ({ ...signSlack(body, new Date()), "content-type": "application/x-www-form-urlencoded" });

function slackJob(installationId: number): AgentJob {
  return AgentJob.parse({
    installationId,
    owner: "octo",
    repo: "hello",
    source: { kind: "slack", ref: { team: TEAM, channel: CHANNEL, ts: THREAD, threadTs: THREAD, botUserId: "UBOT" }, threadKey },
    threadId: threadId({ kind: "source", key: threadKey, repo: "octo/hello" }),
    trigger: "comment",
    requester: { login: "dana", id: 41 },
    text: "run the migration",
    deliveryId: "slack-x",
  });
}

describe("Slack approvals: Approve / Deny buttons decided in the worker", () => {
  let proc: RunningProcess;
  const prefix = uniquePrefix();
  const click = (body: string, headers = formHeaders(body)) => fetch(`http://127.0.0.1:${proc.port}/webhooks/slack/interactivity`, { method: "POST", headers, body });
  const clickJob = async (user: string, at: string) => waitForJob(proc.queues.queues["source-event"], jobId("src", "slack", `action:${TEAM}:${CHANNEL}:${REQUEST_TS}:${user}:${at}`));

  beforeAll(async () => {
    // Only source-event jobs are worked: the resumed agent job stays waiting, to be inspected.
    proc = await startTestProcess(
      "all",
      { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, JOB_ATTEMPTS: "1", SLACK_SIGNING_SECRET: SLACK_SECRET, SLACK_BOT_TOKEN: "xoxb-test" },
      { queues: ["source-event"] },
    );
  });
  afterAll(async () => proc?.stop());

  it("a source run's request is posted with Approve / Deny buttons whose value is the approval id, the comment as fallback", async () => {
    const client = slackClient("xoxb-test", createLogger("silent"));
    let sent: Form = {};
    const posted = nock(SLACK)
      .post("/api/chat.postMessage", (b: Form) => ((sent = b), b.channel === CHANNEL && b.thread_ts === THREAD))
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: REQUEST_TS }));
    const channel = sourceApprovalChannel({ origin: slackJob(1).source as never, client });
    expect("buttons" in channel && channel.buttons).toBe(true);
    if (!("post" in channel)) throw new Error("not a source channel");
    await channel.post("**Approval needed** `@open-swe approve 0badc0de`", "0badc0de");
    expect(posted.isDone()).toBe(true);
    expect(sent.text).toContain("@open-swe approve 0badc0de");
    const blocks = JSON.parse(sent.blocks!) as { type: string; elements?: { action_id: string; value: string }[] }[];
    expect(blocks.find((b) => b.type === "actions")?.elements?.map((e) => [e.action_id, e.value])).toEqual([
      ["open_swe_approval_approve", "0badc0de"],
      ["open_swe_approval_deny", "0badc0de"],
    ]);
  });

  it("a non-writer's click is refused with one reply; a writer's Approve resumes the run and rewrites the message; a later click is told", async () => {
    const store = new ApprovalStore(testRedis(), prefix, 3_600_000);
    const approval: PendingApproval = { id: "5eed5eed", threadId: slackJob(8301).threadId, job: slackJob(8301), calls: [{ name: "execute", preview: "rm -rf build" }], requestedAt: Date.now() };
    await store.create(approval);
    const settings = new SettingsStore(testRedis(), prefix);
    await settings.setIdentity("slack:U0MAL", "mallory");
    await settings.setIdentity("slack:U0ERIN", "erin");
    await settings.setIdentity("slack:U0DANA", "dana");

    mockInstallationToken(8301, 1);
    nock(API).get("/repos/octo/hello/collaborators/mallory/permission").reply(200, { permission: "read", role_name: "read" });
    const refusal = nock(SLACK)
      .post("/api/chat.postMessage", (b: Form) => b.channel === CHANNEL && b.thread_ts === THREAD && b.text!.includes("Only @dana") && b.text!.includes("5eed5eed"))
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: "1.1" }));
    expect((await click(clickBody({ user: "U0MAL", id: "5eed5eed", at: "1764591200.000001" }))).status).toBe(200);
    expect((await clickJob("U0MAL", "1764591200.000001")).returnvalue).toMatchObject({ outcome: "approval_refused" });
    expect(refusal.isDone()).toBe(true);
    expect(await store.resolution("5eed5eed")).toBeNull();
    expect(await findJob(proc.queues.queues.agent, jobId("approval", "5eed5eed"))).toBeUndefined();

    nock(API).get("/repos/octo/hello/collaborators/erin/permission").reply(200, { permission: "write", role_name: "write" });
    const updated = nock(SLACK)
      .post("/api/chat.update", (b: Form) => b.channel === CHANNEL && b.ts === REQUEST_TS && b.text!.includes("Approved by @erin") && !b.blocks!.includes("open_swe_approval_approve"))
      .reply(200, slackBody("chat.update", { ok: true }));
    expect((await click(clickBody({ user: "U0ERIN", id: "5eed5eed", at: "1764591200.000002" }))).status).toBe(200);
    expect((await clickJob("U0ERIN", "1764591200.000002")).returnvalue).toMatchObject({ outcome: "approval_approved", resumed: jobId("approval", "5eed5eed") });
    expect(updated.isDone()).toBe(true);
    expect(await store.resolution("5eed5eed")).toMatchObject({ decision: "approve", by: "erin", how: "person" });
    const resumed = await findJob(proc.queues.queues.agent, jobId("approval", "5eed5eed"));
    expect(resumed?.data).toMatchObject({ trigger: "approval", approval: { id: "5eed5eed", decision: "approve" }, source: { kind: "slack", threadKey } });

    // The requester's own click after that: no permission check, told who decided.
    const told = nock(SLACK)
      .post("/api/chat.postMessage", (b: Form) => b.thread_ts === THREAD && b.text!.includes("already approved by @erin"))
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: "1.2" }));
    expect((await click(clickBody({ user: "U0DANA", id: "5eed5eed", action: "deny", at: "1764591200.000003" }))).status).toBe(200);
    expect((await clickJob("U0DANA", "1764591200.000003")).returnvalue).toMatchObject({ outcome: "approval_already_decided" });
    expect(told.isDone()).toBe(true);
  });

  it("a click from a Slack user with no GitHub identity changes nothing and says how to link them", async () => {
    const store = new ApprovalStore(testRedis(), prefix, 3_600_000);
    await store.create({ id: "abcdef12", threadId: slackJob(8303).threadId, job: slackJob(8303), calls: [{ name: "execute", preview: "x" }], requestedAt: Date.now() });
    nock(SLACK)
      .post("/api/users.info", (b: Form) => b.user === "U0ANON")
      .reply(200, slackBody("users.info", { ok: true, user: { id: "U0ANON", is_bot: false, is_email_confirmed: false, profile: { email: "x@example.com" } } }));
    const told = nock(SLACK)
      .post(
        "/api/chat.postMessage",
        (b: Form) => b.thread_ts === THREAD && (b.text ?? "").includes("your click on `abcdef12` changed nothing") && (b.text ?? "").includes("settings identity set slack:U0ANON"),
      )
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: "1.4" }));
    expect((await click(clickBody({ user: "U0ANON", id: "abcdef12", at: "1764591200.000005" }))).status).toBe(200);
    expect((await clickJob("U0ANON", "1764591200.000005")).returnvalue).toMatchObject({ outcome: "unmapped" });
    expect(told.isDone()).toBe(true);
    expect(await store.resolution("abcdef12")).toBeNull();
  });

  it("a click naming an approval another conversation asked for changes nothing", async () => {
    const store = new ApprovalStore(testRedis(), prefix, 3_600_000);
    await store.create({ id: "0ddba11a", threadId: slackJob(8302).threadId, job: slackJob(8302), calls: [{ name: "execute", preview: "x" }], requestedAt: Date.now() });
    const unknown = nock(SLACK)
      .post("/api/chat.postMessage", (b: Form) => b.channel === "C0OTHER" && b.text!.includes("no approval request `0ddba11a`"))
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: "1.3" }));
    expect((await click(clickBody({ user: "U0ERIN", id: "0ddba11a", channel: "C0OTHER", at: "1764591200.000004" }))).status).toBe(200);
    expect((await waitForJob(proc.queues.queues["source-event"], jobId("src", "slack", `action:${TEAM}:C0OTHER:${REQUEST_TS}:U0ERIN:1764591200.000004`))).returnvalue).toMatchObject({
      outcome: "approval_unknown",
    });
    expect(unknown.isDone()).toBe(true);
    expect(await store.resolution("0ddba11a")).toBeNull();
  });
});
