import { writeFileSync } from "node:fs";
import type { BaseMessage } from "@langchain/core/messages";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisSaver } from "../../src/agent/checkpoint/redis-saver.js";
import { sourceEventJobId } from "../../src/http/source-routes.js";
import { sourceRunJobId } from "../../src/sources/intake.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { FollowUpQueue, followUpRefusedText } from "../../src/threads/follow-ups.js";
import { RunLocks } from "../../src/threads/run-lock.js";
import { ownerJobId } from "../../src/threads/run-owner.js";
import { threadId } from "../../src/shared/thread-id.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { mockInstallationToken, nockRunStart } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";
import type { Mention } from "../sources/conformance.js";
import { SLACK, SLACK_SECRET, slackEventBody, signSlack } from "../sources/slack/slack-fixture.js";
import { slackBody } from "../contracts/slack-contract.js";
import { testSigner } from "../helpers/job-signer.js";

const API = "https://api.github.com";
const PR_URL = "https://github.com/octo/hello/pull/21";
type Form = Record<string, string>;

const script = [
  { tool_calls: [{ name: "write_file", args: { file_path: "/workspace/CHANGELOG.md", content: "# Changelog\n" } }], usage: { input_tokens: 1000, output_tokens: 50 } },
  { tool_calls: [{ name: "commit_and_push", args: { message: "Add CHANGELOG.md" } }], usage: { input_tokens: 1100, output_tokens: 20 } },
  { tool_calls: [{ name: "open_or_update_pull_request", args: { title: "Add CHANGELOG.md", body: "Adds a changelog." } }], usage: { input_tokens: 1200, output_tokens: 30 } },
  { tool_calls: [{ name: "slack_thread_reply", args: { text: `**Added a changelog**: ${PR_URL}` } }], usage: { input_tokens: 1300, output_tokens: 20 } },
  { tool_calls: [{ name: "confirming_completion", args: { summary: "Added CHANGELOG.md" } }], usage: { input_tokens: 1400, output_tokens: 10 } },
];

const followUpScript = [
  { tool_calls: [{ name: "execute", args: { command: "sleep 1.5; echo slept" } }] },
  { tool_calls: [{ name: "slack_thread_reply", args: { text: "Checked both." } }] },
  { tool_calls: [{ name: "confirming_completion", args: { summary: "answered" } }] },
];

describe("e2e: a Slack mention becomes a pushed branch, a draft PR and a thread reply", () => {
  let app: E2eApp;
  let remote: ReturnType<typeof makeBareRemote>;
  const send = (m: Mention) => {
    const body = slackEventBody(m);
    return fetch(`http://127.0.0.1:${app.proc.port}/webhooks/slack`, { method: "POST", headers: signSlack(body, new Date()), body });
  };
  const nockReread = (m: Mention, context: { ts: string; user: string; text: string }[] = []) => {
    nock(SLACK)
      .post("/api/conversations.replies", (b: Form) => b.oldest === m.id)
      .reply(200, slackBody("conversations.replies", { ok: true, messages: [{ ts: m.id, user: m.user, text: `<@UBOT> ${m.text}` }] }));
    if (m.thread)
      nock(SLACK)
        .post("/api/conversations.replies", (b: Form) => b.oldest === undefined && b.latest === m.id)
        .reply(200, slackBody("conversations.replies", { ok: true, messages: context }));
    return nock(SLACK)
      .post("/api/reactions.add", (b: Form) => b.timestamp === m.id && b.name === "eyes")
      .reply(200, slackBody("reactions.add", { ok: true }));
  };

  beforeAll(async () => {
    remote = makeBareRemote("octo", "hello");
    app = await startE2eApp(remote.template, "slack", { SLACK_SIGNING_SECRET: SLACK_SECRET, SLACK_BOT_TOKEN: "xoxb-e2e" });
  });
  afterAll(async () => app?.stop());

  it("@Open SWE add a changelog repo:octo/hello → PR, the agent's reply and a closing line with the PR link and cost", async () => {
    writeFileSync(app.replay, JSON.stringify(script));
    const settings = new SettingsStore(testRedis(), app.prefix);
    await settings.setIdentity("slack:U0DANA", "dana");
    await settings.recordInstalled("octo/hello", { installationId: 5151 });
    const m: Mention = { id: "1764590000.000100", user: "U0DANA", text: "add a changelog repo:octo/hello", where: "C0ENG" };
    const ack = nockReread(m);
    mockInstallationToken(5151, 2);
    nockRunStart(API, "dana");
    const pr = nock(API)
      .post("/repos/octo/hello/pulls", (b) => b.draft === true && b.base === "main" && /^open-swe\/[0-9a-f]{8}-add-a-changelog/.test(b.head))
      .reply(201, { number: 21, html_url: PR_URL });
    nock(SLACK)
      .post("/api/assistant.threads.setStatus")
      .reply(200, slackBody("assistant.threads.setStatus", { ok: false, error: "not_allowed" }));
    const agentReply = nock(SLACK)
      .post("/api/chat.postMessage", (b: Form) => b.channel === "C0ENG" && b.thread_ts === m.id && b.text === `*Added a changelog*: ${PR_URL}`)
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: "1764590001.0" }));
    let closing = "";
    const summary = nock(SLACK)
      .post("/api/chat.postMessage", (b: Form) => b.thread_ts === m.id && (closing = b.text ?? "").startsWith(`Pull request: ${PR_URL}`))
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: "1764590002.0" }));

    expect((await send(m)).status).toBe(200);
    const intake = await waitForJob(app.proc.queues.queues["source-event"], sourceEventJobId("slack", `T0TEAM:C0ENG:${m.id}`));
    expect(intake.returnvalue).toMatchObject({ outcome: "queued", repo: "octo/hello", via: "text" });
    const done = await waitForJob(app.proc.queues.queues.agent, sourceRunJobId("slack", `T0TEAM:C0ENG:${m.id}`), 60_000);
    expect(done.failedReason).toBeUndefined();
    expect(done.returnvalue).toMatchObject({ outcome: "pr_opened", prUrl: PR_URL });
    expect(ack.isDone() && pr.isDone() && agentReply.isDone() && summary.isDone()).toBe(true);
    // The run's summary line (tokens, cost, duration), in Slack's italics.
    expect(closing).toMatch(/\n\n_Open SWE · replayed run .*· 6\.0k in \/ 130 out · cost n\/a · \d+s_$/);
    const branch = remote
      .git("branch", "--list", "open-swe/*")
      .trim()
      .replace(/^\*?\s*/, "");
    expect(remote.git("show", `${branch}:CHANGELOG.md`)).toBe("# Changelog\n");
  });

  it("a mention in the thread while the run works reaches the running agent as a follow-up, not a second run", async () => {
    writeFileSync(app.replay, JSON.stringify(followUpScript));
    const first: Mention = { id: "1764590100.000100", user: "U0DANA", text: "investigate the flaky test repo:octo/hello", where: "C0ENG" };
    const second: Mention = { id: "1764590105.000200", user: "U0DANA", text: "also check the retry logic", where: "C0ENG", thread: first.id };
    nockReread(first);
    nockReread(second, [{ ts: first.id, user: "U0DANA", text: `<@UBOT> ${first.text}` }]);
    // The installation token and dana's write access are still cached from the first test.
    nock(API).get("/users/dana").times(2).reply(200, { login: "dana", id: 31 });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });
    nock(SLACK)
      .post("/api/assistant.threads.setStatus")
      .reply(200, slackBody("assistant.threads.setStatus", { ok: false, error: "not_allowed" }));
    nock(SLACK)
      .post("/api/chat.postMessage", (b: Form) => b.text === "Checked both.")
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: "1.1" }));
    nock(SLACK)
      .post("/api/chat.postMessage", (b: Form) => /Open SWE · /.test(b.text ?? ""))
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: "1.2" }));

    const thread = threadId({ kind: "source", key: `slack:T0TEAM:C0ENG:${first.id}`, repo: "octo/hello" });
    const saver = new RedisSaver({ redis: testRedis(), prefix: `${app.prefix}:ckpt` });
    const messagesNow = async () => ((await saver.getTuple({ configurable: { thread_id: thread } }))?.checkpoint.channel_values as { messages?: BaseMessage[] } | undefined)?.messages ?? [];
    expect((await send(first)).status).toBe(200);
    for (let i = 0; !(await messagesNow()).some((msg) => msg.getType() === "ai"); i++) {
      if (i > 600) throw new Error("the first run never reached the model");
      await new Promise((r) => setTimeout(r, 20));
    }
    const firstRun = sourceRunJobId("slack", `T0TEAM:C0ENG:${first.id}`);
    expect(ownerJobId((await new RunLocks(testRedis(), app.prefix, 60_000).holder(thread))!)).toBe(firstRun);
    expect((await send(second)).status).toBe(200);
    expect(await waitForJob(app.proc.queues.queues.agent, sourceRunJobId("slack", `T0TEAM:C0ENG:${second.id}`))).toMatchObject({ returnvalue: { outcome: "follow_up" } });
    const done = await waitForJob(app.proc.queues.queues.agent, firstRun, 60_000);
    expect(done.failedReason).toBeUndefined();
    const kinds = (await messagesNow()).map((msg) => `${msg.getType()}:${typeof msg.content === "string" ? msg.content.slice(0, 60) : ""}`);
    const followUp = kinds.findIndex((k) => k.startsWith("human:Follow-up from @dana (slack): also check the retry logic"));
    const sleptAt = kinds.findIndex((k) => k.startsWith("tool:") && k.includes("slept"));
    expect(sleptAt).toBeGreaterThan(0);
    expect(followUp).toBeGreaterThan(sleptAt);
  });

  it("a mention in a busy thread whose follow-up list is full is not taken, and the thread is told so", async () => {
    const root: Mention = { id: "1764590300.000100", user: "U0DANA", text: "look into the cache repo:octo/hello", where: "C0ENG" };
    const extra: Mention = { id: "1764590305.000200", user: "U0DANA", text: "and one more thing repo:octo/hello", where: "C0ENG", thread: root.id };
    const thread = threadId({ kind: "source", key: `slack:T0TEAM:C0ENG:${root.id}`, repo: "octo/hello" });
    // The thread's run is busy (its lock held by a job BullMQ still has) and 20 messages already wait for it.
    await app.proc.queues.queues.agent.add("agent", {}, { jobId: "slack-busy-job", delay: 3600_000 });
    await new RunLocks(testRedis(), app.prefix, 60_000).acquire(thread, "slack-busy-job");
    const queue = new FollowUpQueue(testRedis(), app.prefix, 20, testSigner());
    for (let i = 0; i < 20; i++) await queue.push(thread, { text: `m${i}`, author: "dana", source: "slack", at: i });
    nockReread(extra, [{ ts: root.id, user: "U0DANA", text: `<@UBOT> ${root.text}` }]);
    nock(API).get("/users/dana").optionally().reply(200, { login: "dana", id: 31 });
    const told = nock(SLACK)
      .post("/api/chat.postMessage", (b: Form) => b.thread_ts === root.id && b.text === followUpRefusedText(20))
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: "2.1" }));
    expect((await send(extra)).status).toBe(200);
    expect(await waitForJob(app.proc.queues.queues.agent, sourceRunJobId("slack", `T0TEAM:C0ENG:${extra.id}`))).toMatchObject({ returnvalue: { outcome: "follow_up_refused", waiting: 20 } });
    expect(told.isDone()).toBe(true);
    expect(await queue.length(thread)).toBe(20);
  });

  it("a question answered in the thread, with no PR and no completion call, ends the run as completed", async () => {
    writeFileSync(app.replay, JSON.stringify([{ tool_calls: [{ name: "slack_thread_reply", args: { text: "It retries three times." } }] }, { text: "Answered in the thread." }]));
    const m: Mention = { id: "1764590150.000100", user: "U0DANA", text: "how often does it retry? repo:octo/hello", where: "C0ENG" };
    nockReread(m);
    nock(API).get("/users/dana").reply(200, { login: "dana", id: 31 });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });
    nock(SLACK)
      .post("/api/assistant.threads.setStatus")
      .reply(200, slackBody("assistant.threads.setStatus", { ok: false, error: "not_allowed" }));
    const reply = nock(SLACK)
      .post("/api/chat.postMessage", (b: Form) => b.thread_ts === m.id && b.text === "It retries three times.")
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: "1.3" }));
    nock(SLACK)
      .post("/api/chat.postMessage", (b: Form) => b.thread_ts === m.id && /Open SWE · /.test(b.text ?? ""))
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: "1.4" }));
    expect((await send(m)).status).toBe(200);
    const done = await waitForJob(app.proc.queues.queues.agent, sourceRunJobId("slack", `T0TEAM:C0ENG:${m.id}`), 60_000);
    expect(done.failedReason).toBeUndefined();
    // The source's reply tool (declared in its registry entry) counts as the run's answer.
    expect(done.returnvalue).toMatchObject({ outcome: "completed" });
    expect(reply.isDone()).toBe(true);
  });

  it("a run that cannot start says why in the thread, and runs nothing", async () => {
    const m: Mention = { id: "1764590200.000100", user: "U0DANA", text: "refactor it repo:octo/hello", where: "C0ENG" };
    nockReread(m);
    nock(API).get("/users/dana").reply(200, { login: "dana", id: 31 });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(200, "agent:\n  colour: blue\n");
    const said = nock(SLACK)
      .post("/api/chat.postMessage", (b: Form) => b.thread_ts === m.id && /^I could not use `\.github\/open-swe\.yml`/.test(b.text ?? ""))
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: "2.1" }));
    expect((await send(m)).status).toBe(200);
    const done = await waitForJob(app.proc.queues.queues.agent, sourceRunJobId("slack", `T0TEAM:C0ENG:${m.id}`), 30_000);
    expect(done.state).toBe("failed");
    expect(done.failedReason).toMatch(/open-swe\.yml/);
    expect(said.isDone()).toBe(true);
  });
});
