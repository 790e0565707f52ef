import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisSaver } from "../../src/agent/checkpoint/redis-saver.js";
import { sourceEventJobId } from "../../src/http/source-routes.js";
import { threadSandboxKey } from "../../src/sandbox/lifecycle.js";
import { sourceRunJobId } from "../../src/sources/intake.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { threadId } from "../../src/shared/thread-id.js";
import { CLIENT_ID, CLIENT_SECRET, mockSignIn } from "../dashboard/browser.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { mockInstallationToken, mockRepoRole } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob, findJob } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";
import type { Mention } from "../sources/conformance.js";
import { SLACK, SLACK_SECRET, signSlack, slackEventBody } from "../sources/slack/slack-fixture.js";
import { slackBody } from "../contracts/slack-contract.js";

const API = "https://api.github.com";
const SECRET = "SECRET-b41d-anna-only";
type Form = Record<string, string>;

/**
 * Issue 21, finding 1, end to end: anna (writes octo/secret) asks in a Slack thread; boris (writes only
 * octo/public) posts in the same thread naming repo:octo/public. Real web + worker, signed Slack events,
 * the replay model, real bubblewrap sandboxes; Slack and GitHub under nock.
 */
describe("a Slack thread shared by two people about two repositories leaks nothing across them", () => {
  let app: E2eApp;
  let remoteRoot: string;
  const A: Mention = { id: "1764593000.000100", user: "U0ANNA", text: "write the incident notes repo:octo/secret", where: "C0OPS" };
  const B: Mention = { id: "1764593050.000200", user: "U0BORIS", text: "update the docs repo:octo/public", where: "C0OPS", thread: A.id };
  const key = `slack:T0TEAM:C0OPS:${A.id}`;
  const send = (m: Mention) => {
    const body = slackEventBody(m);
    return fetch(`http://127.0.0.1:${app.proc.port}/webhooks/slack`, { method: "POST", headers: signSlack(body, new Date()), body });
  };
  const reread = (m: Mention, context: { ts: string; user: string; text: string }[] = []) => {
    nock(SLACK)
      .post("/api/conversations.replies", (b: Form) => b.oldest === m.id)
      .reply(200, slackBody("conversations.replies", { ok: true, messages: [{ ts: m.id, user: m.user, text: `<@UBOT> ${m.text}` }] }));
    if (m.thread)
      nock(SLACK)
        .post("/api/conversations.replies", (b: Form) => b.oldest === undefined && b.latest === m.id)
        .reply(200, slackBody("conversations.replies", { ok: true, messages: context }));
    nock(SLACK)
      .post("/api/reactions.add", (b: Form) => b.timestamp === m.id)
      .reply(200, slackBody("reactions.add", { ok: true }));
  };
  const runStart = (repo: string, login: string, id: number) => {
    nock(API).get(`/repos/octo/${repo}/collaborators/${login}/permission`).reply(200, { permission: "write", role_name: "write" });
    nock(API).get(`/users/${login}`).reply(200, { login, id });
    nock(API).get(`/repos/octo/${repo}/contents/.github%2Fopen-swe.yml`).reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get(`/repos/octo/${repo}`).reply(200, { default_branch: "main" });
  };
  const messagesOf = async (thread: string) =>
    (
      (await new RedisSaver({ redis: testRedis(), prefix: `${app.prefix}:ckpt` }).getTuple({ configurable: { thread_id: thread } }))?.checkpoint.channel_values as
        | { messages?: BaseMessage[] }
        | undefined
    )?.messages ?? [];
  const textOf = (ms: BaseMessage[]) => ms.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");

  beforeAll(async () => {
    const pub = makeBareRemote("octo", "public", { "README.md": "# public docs\n" });
    remoteRoot = pub.root;
    const secret = makeBareRemote("octo", "secret", { "README.md": "# secret\n", "credentials.txt": `${SECRET}\n` });
    execFileSync("git", ["clone", "-q", "--bare", secret.bare, join(remoteRoot, "octo", "secret.git")]);
    app = await startE2eApp(pub.template, "cross-repo", { SLACK_SIGNING_SECRET: SLACK_SECRET, SLACK_BOT_TOKEN: "xoxb-e2e", GITHUB_CLIENT_ID: CLIENT_ID, GITHUB_CLIENT_SECRET: CLIENT_SECRET });
    const settings = new SettingsStore(testRedis(), app.prefix);
    await settings.setIdentity("slack:U0ANNA", "anna");
    await settings.setIdentity("slack:U0BORIS", "boris");
    await settings.recordInstalled("octo/secret", { installationId: 4242 });
    await settings.recordInstalled("octo/public", { installationId: 4242 });
  });
  afterAll(async () => app?.stop());

  it("boris's run is a new thread with its own sandbox and history, and his dashboard shows none of anna's", async () => {
    // Anna's run: it reads the secret into its workspace and conversation.
    writeFileSync(
      app.replay,
      JSON.stringify([
        { tool_calls: [{ name: "execute", args: { command: "cat /workspace/credentials.txt > /workspace/NOTES.md && cat /workspace/NOTES.md" } }] },
        { tool_calls: [{ name: "slack_thread_reply", args: { text: "Noted." } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "notes written" } }] },
      ]),
    );
    reread(A);
    mockInstallationToken(4242, 2);
    runStart("secret", "anna", 41);
    nock(SLACK)
      .post("/api/assistant.threads.setStatus")
      .reply(200, slackBody("assistant.threads.setStatus", { ok: false, error: "not_allowed" }));
    nock(SLACK)
      .post("/api/chat.postMessage", (b: Form) => b.thread_ts === A.id && (b.text === "Noted." || /Open SWE · /.test(b.text ?? "")))
      .times(2)
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: "1.1" }));
    expect((await send(A)).status).toBe(200);
    const aRunId = sourceRunJobId("slack", `T0TEAM:C0OPS:${A.id}`);
    expect((await waitForJob(app.proc.queues.queues.agent, aRunId, 90_000)).failedReason).toBeUndefined();
    const aThread = (await findJob(app.proc.queues.queues.agent, aRunId))!.data.threadId;
    expect(textOf(await messagesOf(aThread))).toContain(SECRET);
    const aSandbox = await testRedis().get(threadSandboxKey(app.prefix, aThread));
    expect(aSandbox).toBeTruthy();

    // Boris, in the same Slack thread, names the repository he can write.
    writeFileSync(
      app.replay,
      JSON.stringify([
        {
          tool_calls: [
            {
              name: "execute",
              args: { command: "ls -a /workspace; cat /workspace/NOTES.md /workspace/credentials.txt; grep -rs SECRET- / --include=*.md --include=*.txt 2>/dev/null | head -5; true" },
            },
          ],
        },
        { tool_calls: [{ name: "slack_thread_reply", args: { text: "Looked." } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "looked" } }] },
      ]),
    );
    reread(B, [
      { ts: A.id, user: "U0ANNA", text: `<@UBOT> ${A.text}` },
      { ts: "1764593010.000100", user: "U0ANNA", text: `the notes mention ${SECRET}` },
    ]);
    runStart("public", "boris", 42);
    mockInstallationToken(4242, 1);
    const notice = nock(SLACK)
      .post("/api/chat.postMessage", (b: Form) => b.thread_ts === A.id && /This conversation was about octo\/secret; I started a new thread for octo\/public/.test(b.text ?? ""))
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: "1.2" }));
    nock(SLACK)
      .post("/api/assistant.threads.setStatus")
      .reply(200, slackBody("assistant.threads.setStatus", { ok: false, error: "not_allowed" }));
    nock(SLACK)
      .post("/api/chat.postMessage", (b: Form) => b.thread_ts === A.id && (b.text === "Looked." || /Open SWE · /.test(b.text ?? "")))
      .times(2)
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: "1.3" }));
    expect((await send(B)).status).toBe(200);
    expect((await waitForJob(app.proc.queues.queues["source-event"], sourceEventJobId("slack", `T0TEAM:C0OPS:${B.id}`))).returnvalue).toMatchObject({
      outcome: "queued",
      repo: "octo/public",
      newThread: true,
    });
    expect(notice.isDone()).toBe(true);
    const bRunId = sourceRunJobId("slack", `T0TEAM:C0OPS:${B.id}`);
    expect((await waitForJob(app.proc.queues.queues.agent, bRunId, 90_000)).failedReason).toBeUndefined();
    const bJob = (await findJob(app.proc.queues.queues.agent, bRunId))!.data;
    const bThread = bJob.threadId;
    expect(bThread).not.toBe(aThread);
    // Its own sandbox, which has none of octo/secret's workspace.
    const bSandbox = await testRedis().get(threadSandboxKey(app.prefix, bThread));
    expect(bSandbox).toBeTruthy();
    expect(bSandbox).not.toBe(aSandbox);
    const bMessages = textOf(await messagesOf(bThread));
    expect(bMessages).toContain("README.md");
    expect(bMessages).not.toContain(SECRET);
    expect(bMessages).not.toContain("incident notes");

    // Boris's dashboard: his run shows his conversation only; anna's run is not his to see.
    const jar = new Map<string, string>();
    const base = `http://127.0.0.1:${app.proc.port}`;
    const keep = (res: Response) => {
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(";");
        const i = pair!.indexOf("=");
        jar.set(pair!.slice(0, i), pair!.slice(i + 1));
      }
    };
    const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const login = await fetch(`${base}/auth/login?next=/app`, { redirect: "manual" });
    keep(login);
    const authorize = new URL(login.headers.get("location")!);
    mockSignIn(
      {
        login: "boris",
        id: 42,
        repos: [
          { full_name: "octo/public", push: true },
          { full_name: "octo/secret", push: false },
        ],
      },
      () => authorize.searchParams.get("code_challenge") ?? undefined,
    );
    keep(await fetch(`${base}/auth/callback?code=code-1&state=${authorize.searchParams.get("state")}`, { redirect: "manual", headers: { cookie: cookie() } }));
    // Reading his run asks GitHub whether he may read octo/public now (or finds his run's answer cached).
    mockRepoRole("boris", "write", { repo: "octo/public", optional: true });
    const page = await fetch(`${base}/app/runs/${encodeURIComponent(bRunId)}`, { headers: { cookie: cookie() } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("update the docs");
    expect(html).not.toContain(SECRET);
    expect(html).not.toContain("incident notes");
    const live = await (await fetch(`${base}/app/runs/${encodeURIComponent(bRunId)}/events?from=0`, { headers: { cookie: cookie() } })).text();
    expect(live).toContain("event: done");
    expect(live).not.toContain(SECRET);
    expect((await fetch(`${base}/app/runs/${encodeURIComponent(aRunId)}`, { headers: { cookie: cookie() } })).status).toBe(404);
    // The earlier messages of the conversation were anna's: the new thread starts without them.
    expect(bJob.source).not.toHaveProperty("context");
    expect([aThread, bThread]).toEqual([threadId({ kind: "source", key, repo: "octo/secret" }), threadId({ kind: "source", key, repo: "octo/public" })]);
  });
});
