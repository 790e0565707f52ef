import { writeFileSync } from "node:fs";
import type { BaseMessage } from "@langchain/core/messages";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisSaver } from "../../src/agent/checkpoint/redis-saver.js";
import { sourceEventJobId } from "../../src/http/source-routes.js";
import { threadId } from "../../src/shared/thread-id.js";
import { sourceRunJobId } from "../../src/sources/intake.js";
import { linearDedupeKey } from "../../src/sources/linear/parse-linear-event.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { RunRecords } from "../../src/store/run-records.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { mockInstallationToken, nockRunStart } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";
import { ALICE, APP_USER, commentEvent, ISSUE, issueEvent, SECRET, signLinear, TEAM } from "../sources/linear/linear-fixtures.js";
import { mockLinear, type GraphqlCall } from "../sources/linear/linear-nock.js";

const API = "https://api.github.com";
const PR_URL = "https://github.com/octo/hello/pull/21";
const DELIVERY = "7d6f1b7e-2c1a-4f7e-9a1d-0c2b3a4d5e6f";
/** The dedupe key of the first test's comment: its webhook, comment and action, from the signed body. */
const COMMENT_KEY = "linear:webhook-0001:Comment:comment-0001:create";

const script = [
  { tool_calls: [{ name: "write_file", args: { file_path: "/workspace/LOGIN.md", content: "# Login\n\nThe retry waits for the session.\n" } }], usage: { input_tokens: 1000, output_tokens: 50 } },
  { tool_calls: [{ name: "commit_and_push", args: { message: "Document the login retry" } }], usage: { input_tokens: 1100, output_tokens: 20 } },
  { tool_calls: [{ name: "open_or_update_pull_request", args: { title: "Document the login retry", body: "Explains the retry." } }], usage: { input_tokens: 1200, output_tokens: 30 } },
  { tool_calls: [{ name: "linear_comment", args: { body: `Done: ${PR_URL}` } }], usage: { input_tokens: 1300, output_tokens: 20 } },
  { tool_calls: [{ name: "confirming_completion", args: { summary: "documented" } }], usage: { input_tokens: 1400, output_tokens: 10 } },
];

describe("e2e: a signed Linear comment becomes a run, a PR and a Linear reply", () => {
  let app: E2eApp;
  let remote: ReturnType<typeof makeBareRemote>;
  beforeAll(async () => {
    remote = makeBareRemote("octo", "hello");
    app = await startE2eApp(remote.template, "linear", { LINEAR_WEBHOOK_SECRET: SECRET, LINEAR_API_KEY: "lin_api_test", LINEAR_APP_USER_ID: APP_USER });
    writeFileSync(app.replay, JSON.stringify(script));
    const settings = new SettingsStore(testRedis(), app.prefix);
    await settings.setIdentity(`linear:${ALICE.id}`, "dana");
    await settings.setSourceRepo(`linear:${TEAM}`, "octo/hello");
  });
  afterAll(async () => app?.stop());

  it("@open-swe in a Linear thread: 👀, a draft PR, the reply threaded with the PR link attached and the cost line", async () => {
    const linear: GraphqlCall[] = [];
    // The intake re-reads the comment with our key (the payload's author is not trusted), then acknowledges.
    mockLinear(
      "OpenSweLinearComment",
      {
        data: {
          viewer: { id: APP_USER },
          comment: {
            id: "comment-0001",
            body: "@open-swe please document the login retry",
            createdAt: "2026-12-01T10:00:00.000Z",
            user: ALICE,
            botActor: null,
            issue: { id: ISSUE, identifier: "ENG-1", title: "Flaky login test", description: "It fails one run in ten.", url: "https://linear.app/acme/issue/ENG-1", comments: { nodes: [] } },
          },
        },
      },
      { calls: linear },
    );
    mockLinear("OpenSweAcknowledge", { data: { reactionCreate: { success: true } } }, { calls: linear });
    mockLinear("OpenSweCommentCreate", { data: { commentCreate: { success: true, comment: { id: "c-reply-1", url: "https://linear.app/acme/issue/ENG-3#comment-c-reply-1" } } } }, { calls: linear });
    mockLinear("OpenSweAttachPullRequest", { data: { attachmentLinkURL: { success: true } } }, { calls: linear });
    mockLinear("OpenSweCommentCreate", { data: { commentCreate: { success: true, comment: { id: "c-reply-2", url: "https://linear.app/acme/issue/ENG-3#comment-c-reply-2" } } } }, { calls: linear });
    mockLinear("OpenSweAttachPullRequest", { data: { attachmentLinkURL: { success: true } } }, { calls: linear });

    nock(API).get("/repos/octo/hello/installation").reply(200, { id: 5151 });
    mockInstallationToken(5151, 2);
    nockRunStart(API, "dana");
    const pr = nock(API)
      .post("/repos/octo/hello/pulls", (b) => b.title === "Document the login retry" && b.draft === true)
      .reply(201, { number: 21, html_url: PR_URL });

    const raw = JSON.stringify(commentEvent({ body: "@open-swe please document the login retry" }));
    const res = await fetch(`http://127.0.0.1:${app.proc.port}/webhooks/linear`, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8", "linear-signature": signLinear(raw), "linear-delivery": DELIVERY, "linear-event": "Comment" },
      body: raw,
    });
    expect(res.status).toBe(200);

    const intake = await waitForJob(app.proc.queues.queues["source-event"], sourceEventJobId("linear", COMMENT_KEY), 30_000);
    expect(intake.failedReason).toBeUndefined();
    expect(intake.returnvalue).toMatchObject({ outcome: "queued", repo: "octo/hello", login: "dana" });
    const run = await waitForJob(app.proc.queues.queues.agent, sourceRunJobId("linear", COMMENT_KEY), 90_000);
    expect(run.failedReason).toBeUndefined();
    expect(run).toMatchObject({ state: "completed", returnvalue: { outcome: "pr_opened", prUrl: PR_URL } });
    expect(pr.isDone()).toBe(true);

    const ops = linear.map((c) => /^\s*(?:query|mutation) (\w+)/.exec(c.query)?.[1]);
    expect(ops).toEqual(["OpenSweLinearComment", "OpenSweAcknowledge", "OpenSweCommentCreate", "OpenSweAttachPullRequest", "OpenSweCommentCreate", "OpenSweAttachPullRequest"]);
    expect(linear[1]!.variables).toEqual({ input: { commentId: "comment-0001", emoji: "👀" } });
    // The agent's reply and the closing message, both under the triggering comment's thread.
    expect(linear[2]!.variables).toEqual({ input: { issueId: ISSUE, body: `Done: ${PR_URL}`, parentId: "comment-0001" } });
    const closing = linear[4]!.variables as { input: { issueId: string; body: string; parentId: string } };
    expect(closing.input).toMatchObject({ issueId: ISSUE, parentId: "comment-0001" });
    expect(closing.input.body).toContain(`Pull request: ${PR_URL}`);
    expect(closing.input.body).toMatch(/_Open SWE · replayed run.*_$/s);
    expect(linear[3]!.variables).toEqual({ issueId: ISSUE, url: PR_URL, title: "Pull request octo/hello#21" });

    const branch = remote
      .git("branch", "--list", "open-swe/*")
      .trim()
      .replace(/^\*?\s*/, "");
    expect(remote.git("show", `${branch}:LOGIN.md`)).toContain("The retry waits");
    const record = await new RunRecords(testRedis(), app.prefix).get(sourceRunJobId("linear", COMMENT_KEY));
    expect(record).toMatchObject({ outcome: "pr_opened", prUrl: PR_URL, replayed: true });
    expect(record?.toolCounts).toMatchObject({ linear_comment: 1, commit_and_push: 1 });
  });

  it("the same event again (Linear's retry, under another Linear-Delivery id) starts nothing", async () => {
    const raw = JSON.stringify(commentEvent({ body: "@open-swe please document the login retry" }));
    const res = await fetch(`http://127.0.0.1:${app.proc.port}/webhooks/linear`, {
      method: "POST",
      headers: { "content-type": "application/json", "linear-signature": signLinear(raw), "linear-delivery": "another-delivery-id" },
      body: raw,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, duplicate: true });
  });

  it("an issue assigned to the app: its history names who asked; the answers go on the issue itself", async () => {
    writeFileSync(
      app.replay,
      JSON.stringify([
        { tool_calls: [{ name: "linear_comment", args: { body: "The retry is already documented in LOGIN.md; nothing to change." } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "nothing to change" } }] },
      ]),
    );
    const delivery = "5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d";
    const issueId = "issue-0002";
    const linear: GraphqlCall[] = [];
    mockLinear(
      "OpenSweLinearIssueTrigger",
      {
        data: {
          issue: {
            id: issueId,
            identifier: "ENG-2",
            title: "Document the login retry",
            description: "See ENG-1.",
            url: "https://linear.app/acme/issue/ENG-2",
            comments: { nodes: [] },
            trashed: false,
            archivedAt: null,
            creator: { id: "user-bob", name: "Bob", email: "bob@example.com" },
            assignee: { id: APP_USER },
            delegate: null,
            labels: { nodes: [] },
            history: {
              pageInfo: { hasNextPage: false },
              nodes: [{ createdAt: "2026-12-01T10:00:00.000Z", actor: ALICE, botActor: null, toAssignee: { id: APP_USER }, toDelegate: null, addedLabelIds: null }],
            },
          },
        },
      },
      { calls: linear },
    );
    mockLinear("OpenSweAcknowledge", { data: { reactionCreate: { success: true } } }, { calls: linear });
    mockLinear(
      "OpenSweCommentCreate",
      { data: { commentCreate: { success: true, comment: { id: "c-3", url: "https://linear.app/acme/issue/ENG-3#comment-c-3" } } } },
      { calls: linear, when: (v) => /already documented/.test(String((v["input"] as { body: string }).body)) },
    );
    mockLinear("OpenSweCommentCreate", { data: { commentCreate: { success: true, comment: { id: "c-4", url: "https://linear.app/acme/issue/ENG-3#comment-c-4" } } } }, { calls: linear });
    nock(API).get("/repos/octo/hello/installation").reply(200, { id: 5151 });
    nock(API).get("/users/dana").reply(200, { login: "dana", id: 31 });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });

    const raw = JSON.stringify(issueEvent({ id: issueId, identifier: "ENG-2", title: "Document the login retry", description: "See ENG-1." }));
    const res = await fetch(`http://127.0.0.1:${app.proc.port}/webhooks/linear`, {
      method: "POST",
      headers: { "content-type": "application/json", "linear-signature": signLinear(raw), "linear-delivery": delivery, "linear-event": "Issue" },
      body: raw,
    });
    expect(res.status).toBe(200);
    const intake = await waitForJob(app.proc.queues.queues["source-event"], sourceEventJobId("linear", linearDedupeKey(JSON.parse(raw))), 30_000);
    expect(intake.returnvalue).toMatchObject({ outcome: "queued", repo: "octo/hello", login: "dana" });
    const run = await waitForJob(app.proc.queues.queues.agent, sourceRunJobId("linear", linearDedupeKey(JSON.parse(raw))), 90_000);
    expect(run.failedReason).toBeUndefined();
    expect(run.state).toBe("completed");
    expect(linear[1]!.variables).toEqual({ input: { issueId, emoji: "👀" } });
    expect(linear[2]!.variables).toEqual({ input: { issueId, body: "The retry is already documented in LOGIN.md; nothing to change." } });
    expect((linear[3]!.variables as { input: { body: string; parentId?: string } }).input).toMatchObject({ issueId, body: expect.stringMatching(/_Open SWE · replayed run.*_$/s) });
    expect((linear[3]!.variables as { input: { parentId?: string } }).input.parentId).toBeUndefined();
  });

  it("a comment sent mid-run on the same issue reaches the running agent as a follow-up, not a second run", async () => {
    writeFileSync(
      app.replay,
      JSON.stringify([
        { tool_calls: [{ name: "execute", args: { command: "sleep 1.5; echo slept" } }] },
        { tool_calls: [{ name: "linear_comment", args: { body: "Checked both." } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "answered" } }] },
      ]),
    );
    const issueId = "issue-0003";
    const comment = (id: string, body: string) => ({
      data: {
        viewer: { id: APP_USER },
        comment: {
          id,
          body,
          createdAt: "2026-12-01T11:00:00.000Z",
          user: ALICE,
          botActor: null,
          issue: { id: issueId, identifier: "ENG-3", title: "Flaky", description: null, url: "https://linear.app/acme/issue/ENG-3", comments: { nodes: [] } },
        },
      },
    });
    const send = async (id: string, body: string, delivery: string) => {
      const raw = JSON.stringify(commentEvent({ id, body, issueId, issue: { id: issueId, identifier: "ENG-3", title: "Flaky", teamId: TEAM, url: "u" } }));
      const res = await fetch(`http://127.0.0.1:${app.proc.port}/webhooks/linear`, {
        method: "POST",
        headers: { "content-type": "application/json", "linear-signature": signLinear(raw), "linear-delivery": delivery },
        body: raw,
      });
      expect(res.status).toBe(200);
    };
    for (const [id, text] of [
      ["c-31", "@open-swe investigate the flaky test"],
      ["c-32", "@open-swe also check the retry logic"],
    ] as const) {
      mockLinear("OpenSweLinearComment", comment(id, text), { when: (v) => v["id"] === id });
      mockLinear("OpenSweAcknowledge", { data: { reactionCreate: { success: true } } }, { when: (v) => (v["input"] as { commentId?: string }).commentId === id });
      nock(API).get("/repos/octo/hello/installation").reply(200, { id: 5151 });
      nock(API).get("/users/dana").reply(200, { login: "dana", id: 31 });
    }
    const posted: GraphqlCall[] = [];
    mockLinear("OpenSweCommentCreate", { data: { commentCreate: { success: true, comment: { id: "c-33", url: "https://linear.app/acme/issue/ENG-3#comment-c-33" } } } }, { calls: posted });
    mockLinear("OpenSweCommentCreate", { data: { commentCreate: { success: true, comment: { id: "c-34", url: "https://linear.app/acme/issue/ENG-3#comment-c-34" } } } }, { calls: posted });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });

    const first = "8c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f";
    const second = "9d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a";
    await send("c-31", "@open-swe investigate the flaky test", first);
    const thread = threadId({ kind: "source", key: `linear:${issueId}`, repo: "octo/hello" });
    const saver = new RedisSaver({ redis: testRedis(), prefix: `${app.prefix}:ckpt` });
    const messagesNow = async () => ((await saver.getTuple({ configurable: { thread_id: thread } }))?.checkpoint.channel_values as { messages?: BaseMessage[] } | undefined)?.messages ?? [];
    for (let i = 0; !(await messagesNow()).some((m) => m.getType() === "ai"); i++) {
      if (i > 1500) throw new Error("the first run never reached the model");
      await new Promise((r) => setTimeout(r, 20));
    }
    await send("c-32", "@open-swe also check the retry logic", second);
    expect(await waitForJob(app.proc.queues.queues.agent, sourceRunJobId("linear", "linear:webhook-0001:Comment:c-32:create"), 30_000)).toMatchObject({ returnvalue: { outcome: "follow_up" } });
    const done = await waitForJob(app.proc.queues.queues.agent, sourceRunJobId("linear", "linear:webhook-0001:Comment:c-31:create"), 90_000);
    expect(done.failedReason).toBeUndefined();
    const kinds = (await messagesNow()).map((m) => `${m.getType()}:${typeof m.content === "string" ? m.content : ""}`);
    const followUp = kinds.findIndex((k) => k.startsWith("human:Follow-up from @dana (linear): @open-swe also check the retry logic"));
    const slept = kinds.findIndex((k) => k.startsWith("tool:") && k.includes("slept"));
    expect(slept).toBeGreaterThan(0);
    expect(followUp).toBeGreaterThan(slept);
    expect(posted.map((c) => (c.variables["input"] as { parentId: string }).parentId)).toEqual(["c-31", "c-31"]);
  });
});
