import { writeFileSync } from "node:fs";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalStore } from "../../src/approvals/approval-store.js";
import { jobId } from "../../src/queue/job-ids.js";
import { sourceRunJobId } from "../../src/sources/intake.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { threadId } from "../../src/shared/thread-id.js";
import { CONFIG, toolMessages } from "../helpers/approval-run.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { mockInstallationToken } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";
import { SLACK, slackEventBody, signSlack, SLACK_SECRET } from "../sources/slack/slack-fixture.js";
import { slackBody } from "../contracts/slack-contract.js";

const API = "https://api.github.com";
type Form = Record<string, string>;
const M = { id: "1764592000.000100", user: "U0DANA", text: "write the proof file repo:octo/hello", where: "C0ENG" };
const REQUEST_TS = "1764592001.000200";

describe("e2e: a Slack run pauses with Approve / Deny buttons and a writer's click resumes it", () => {
  let app: E2eApp;
  beforeAll(async () => {
    app = await startE2eApp(makeBareRemote("octo", "hello").template, "slack-approval", { SLACK_SIGNING_SECRET: SLACK_SECRET, SLACK_BOT_TOKEN: "xoxb-e2e" });
  });
  afterAll(async () => app?.stop());

  it("mention → request with buttons → erin's Approve → the call runs, the message says who approved", async () => {
    writeFileSync(
      app.replay,
      JSON.stringify([
        { tool_calls: [{ name: "execute", args: { command: "echo approved > proof.txt && cat proof.txt" } }] },
        { tool_calls: [{ name: "slack_thread_reply", args: { text: "Wrote it." } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] },
      ]),
    );
    const settings = new SettingsStore(testRedis(), app.prefix);
    await settings.setIdentity("slack:U0DANA", "dana");
    await settings.setIdentity("slack:U0ERIN", "erin");
    await settings.recordInstalled("octo/hello", { installationId: 5252 });
    nock(SLACK)
      .post("/api/conversations.replies", (b: Form) => b.oldest === M.id)
      .reply(200, slackBody("conversations.replies", { ok: true, messages: [{ ts: M.id, user: M.user, text: `<@UBOT> ${M.text}` }] }));
    nock(SLACK)
      .post("/api/reactions.add")
      .reply(200, slackBody("reactions.add", { ok: true }));
    mockInstallationToken(5252, 2);
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    nock(API).get("/users/dana").reply(200, { login: "dana", id: 31 });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(200, CONFIG);
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });
    nock(SLACK)
      .post("/api/assistant.threads.setStatus")
      .reply(200, slackBody("assistant.threads.setStatus", { ok: false, error: "not_allowed" }));
    let request: Form = {};
    const posted = nock(SLACK)
      .post("/api/chat.postMessage", (b: Form) => ((request = b), b.thread_ts === M.id && typeof b.blocks === "string" && /Approval needed/.test(b.text ?? "")))
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: REQUEST_TS }));

    const body = slackEventBody(M);
    expect((await fetch(`http://127.0.0.1:${app.proc.port}/webhooks/slack`, { method: "POST", headers: signSlack(body, new Date()), body })).status).toBe(200);
    const paused = await waitForJob(app.proc.queues.queues.agent, sourceRunJobId("slack", `T0TEAM:C0ENG:${M.id}`), 60_000);
    expect(paused.failedReason).toBeUndefined();
    expect(paused.returnvalue).toMatchObject({ outcome: "awaiting_approval" });
    expect(posted.isDone()).toBe(true);
    const id = (paused.returnvalue as { approvalId: string }).approvalId;
    expect(request.text).toContain(`@open-swe approve ${id}`);
    expect(request.text).toContain("Decide with the buttons below");
    const buttons = (JSON.parse(request.blocks!) as { type: string; elements?: { action_id: string; value: string }[] }[]).find((b) => b.type === "actions")!.elements!;
    expect(buttons.map((b) => b.value)).toEqual([id, id]);

    // erin (a writer, not the requester) clicks Approve on that message.
    nock(API).get("/repos/octo/hello/collaborators/erin/permission").reply(200, { permission: "write", role_name: "write" });
    const updated = nock(SLACK)
      .post("/api/chat.update", (b: Form) => b.ts === REQUEST_TS && (b.text ?? "").startsWith("Approved by @erin"))
      .reply(200, slackBody("chat.update", { ok: true }));
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(200, CONFIG);
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });
    nock(SLACK)
      .post("/api/assistant.threads.setStatus")
      .optionally()
      .reply(200, slackBody("assistant.threads.setStatus", { ok: false, error: "not_allowed" }));
    const reply = nock(SLACK)
      .post("/api/chat.postMessage", (b: Form) => b.text === "Wrote it.")
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: "2.1" }));
    nock(SLACK)
      .post("/api/chat.postMessage", (b: Form) => /Open SWE · /.test(b.text ?? ""))
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: "2.2" }));
    const payload = {
      type: "block_actions",
      team: { id: "T0TEAM" },
      user: { id: "U0ERIN" },
      channel: { id: "C0ENG" },
      message: { ts: REQUEST_TS, thread_ts: M.id },
      actions: [{ type: "button", action_id: buttons[0]!.action_id, value: buttons[0]!.value, action_ts: "1764592100.000300" }],
    };
    const form = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const res = await fetch(`http://127.0.0.1:${app.proc.port}/webhooks/slack/interactivity`, {
      method: "POST",
      headers: { ...signSlack(form, new Date()), "content-type": "application/x-www-form-urlencoded" },
      body: form,
    });
    expect(res.status).toBe(200);
    const resumed = await waitForJob(app.proc.queues.queues.agent, jobId("approval", id), 60_000);
    expect(resumed.failedReason).toBeUndefined();
    expect(updated.isDone() && reply.isDone()).toBe(true);
    expect(await new ApprovalStore(testRedis(), app.prefix, 60_000).resolution(id)).toMatchObject({ decision: "approve", by: "erin", how: "person" });
    expect(await toolMessages(app.prefix, threadId({ kind: "source", key: `slack:T0TEAM:C0ENG:${M.id}`, repo: "octo/hello" }), "execute")).toEqual([expect.stringMatching(/^approved/)]);
  });
});
