import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import type { BaseMessage } from "@langchain/core/messages";
import { RedisSaver } from "../../src/agent/checkpoint/redis-saver.js";
import { RunRecords } from "../../src/store/run-records.js";
import { SideEffectLedger } from "../../src/store/side-effects.js";
import { sandboxActivityKey, threadSandboxKey } from "../../src/sandbox/lifecycle.js";
import { RunLocks } from "../../src/threads/run-lock.js";
import { ownerJobId } from "../../src/threads/run-owner.js";
import { threadId } from "../../src/shared/thread-id.js";
import { issueCommentPayload, mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";

const API = "https://api.github.com";
const PR_URL = "https://github.com/octo/hello/pull/12";

const followUpScript = [
  { tool_calls: [{ name: "execute", args: { command: "sleep 1.5; echo slept" } }] },
  { tool_calls: [{ name: "github_comment", args: { body: "Looked into both: the retry logic is fine." } }] },
  { tool_calls: [{ name: "confirming_completion", args: { summary: "answered" } }] },
];

const script = [
  {
    text: "I'll add the guide.",
    tool_calls: [{ name: "write_file", args: { file_path: "/workspace/CONTRIBUTING.md", content: "# Contributing\n\nRun `npm test` before sending a PR.\n" } }],
    usage: { input_tokens: 1200, output_tokens: 80 },
  },
  { tool_calls: [{ name: "commit_and_push", args: { message: "Add CONTRIBUTING.md" } }], usage: { input_tokens: 1400, output_tokens: 30 } },
  { tool_calls: [{ name: "open_or_update_pull_request", args: { title: "Add CONTRIBUTING.md", body: "Adds a short contributor guide." } }], usage: { input_tokens: 1500, output_tokens: 40 } },
  { tool_calls: [{ name: "github_comment", args: { body: `Added a contributor guide: ${PR_URL}` } }], usage: { input_tokens: 1600, output_tokens: 30 } },
  { tool_calls: [{ name: "confirming_completion", args: { summary: "Added CONTRIBUTING.md" } }], usage: { input_tokens: 1700, output_tokens: 20 } },
];

describe("e2e: a GitHub comment becomes a pushed branch, a draft PR and a reply", () => {
  let proc: RunningProcess;
  let remote: ReturnType<typeof makeBareRemote>;
  let prefix: string;
  let dataDir: string;
  let replay: string;
  let app: E2eApp;
  beforeAll(async () => {
    remote = makeBareRemote("octo", "hello");
    app = await startE2eApp(remote.template, "e2e");
    ({ proc, prefix, dataDir, replay } = app);
    writeFileSync(replay, JSON.stringify(script));
  });
  afterAll(async () => app?.stop());

  it("@open-swe add a CONTRIBUTING.md", async () => {
    // One for the installation client, one repo-scoped token (reused for the push).
    mockInstallationToken(4242, 2);
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main", full_name: "octo/hello" });
    nock(API).get("/repos/octo/hello/pulls").query(true).reply(200, []);
    const pr = nock(API)
      .post(
        "/repos/octo/hello/pulls",
        (b) =>
          b.title === "Add CONTRIBUTING.md" &&
          b.draft === true &&
          b.base === "main" &&
          /^open-swe\/[0-9a-f]{8}-add-a-contributing-md$/.test(b.head) &&
          b.body.startsWith("Adds a short contributor guide."),
      )
      .reply(201, { number: 12, html_url: PR_URL });
    const ack = nock(API).post("/repos/octo/hello/issues/comments/901/reactions", { content: "eyes" }).reply(201, {});
    let repliedAt = 0;
    const reply = nock(API)
      .post("/repos/octo/hello/issues/8/comments", { body: `Added a contributor guide: ${PR_URL}` })
      .reply(201, () => ((repliedAt = Date.now()), { id: 555 }));
    const summary = nock(API)
      .patch("/repos/octo/hello/issues/comments/555", (b) => b.body.startsWith(`Added a contributor guide: ${PR_URL}`) && /replayed/i.test(b.body) && /Open SWE · replayed run/.test(b.body))
      .reply(200, { id: 555 });

    // The 👀 is claimed once for the run's five model calls, not at each of them.
    const claim = vi.spyOn(SideEffectLedger.prototype, "claim");
    const res = await sendWebhook(proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 4242, number: 8, issueId: 8008, commentId: 901, body: "@open-swe add a CONTRIBUTING.md" }),
    });
    expect(res.status).toBe(200);
    const done = await waitForJob(proc.queues.queues.agent, deliveryJobId(res.deliveryId), 60_000);
    expect(done.failedReason).toBeUndefined();
    expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "pr_opened", prUrl: PR_URL } });
    // The idle TTL counts from the run's end (after its last reply), not from when it got its sandbox.
    const thread = threadId({ kind: "issue", issueId: 8008 });
    expect(await testRedis().get(threadSandboxKey(prefix, thread))).toMatch(/^local-/);
    expect(Number(await testRedis().zscore(sandboxActivityKey(prefix), thread))).toBeGreaterThanOrEqual(repliedAt);
    expect(pr.isDone() && reply.isDone() && summary.isDone() && ack.isDone()).toBe(true);
    expect(claim.mock.calls.map(([key]) => key).filter((k) => k.endsWith(":ack"))).toEqual([`${deliveryJobId(res.deliveryId)}:ack`]);
    claim.mockRestore();

    const branches = remote
      .git("branch", "--list", "open-swe/*")
      .trim()
      .replace(/^\*?\s*/, "");
    expect(branches).toMatch(/^open-swe\/[0-9a-f]{8}-add-a-contributing-md$/);
    expect(remote.git("show", `${branches}:CONTRIBUTING.md`)).toContain("Run `npm test`");
    const log = remote.git("log", "-1", "--format=%an <%ae>%n%B", branches);
    expect(log).toMatch(/^open-swe\[bot\] </);
    expect(log).toContain("Co-authored-by: dana <31+dana@users.noreply.github.com>");

    const record = await new RunRecords(testRedis(), prefix).get(deliveryJobId(res.deliveryId));
    expect(record).toMatchObject({ outcome: "pr_opened", replayed: true, prUrl: PR_URL, inputTokens: 7400, outputTokens: 200, trigger: "comment" });
    expect(record?.toolCounts).toMatchObject({ write_file: 1, commit_and_push: 1, open_or_update_pull_request: 1, github_comment: 1 });

    // No GitHub credential anywhere in the sandbox's files.
    const leaked = execFileSync("bash", ["-c", `grep -rl ghs_test_installation_token ${join(dataDir, "sandboxes")} || true`], { encoding: "utf8" });
    expect(leaked).toBe("");
  });

  it("a follow-up comment sent mid-run reaches the model before its next call, without a second run", async () => {
    writeFileSync(replay, JSON.stringify(followUpScript));
    const thread = threadId({ kind: "issue", issueId: 9009 });
    const prefixRedis = testRedis();
    nock(API)
      .post("/app/installations/4243/access_tokens")
      .times(2)
      .reply(201, { token: "ghs_test_installation_token", expires_at: new Date(Date.now() + 3600_000).toISOString() });
    // dana's write access is still cached from the first test.
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });
    nock(API).post("/repos/octo/hello/issues/comments/1/reactions").reply(201, {});
    nock(API).post("/repos/octo/hello/issues/9/comments").reply(201, { id: 777 });
    nock(API).patch("/repos/octo/hello/issues/comments/777").reply(200, { id: 777 });
    const comment = (commentId: number, body: string) => issueCommentPayload({ installationId: 4243, number: 9, issueId: 9009, commentId, body });
    const first = await sendWebhook(proc.port!, { event: "issue_comment", payload: comment(1, "@open-swe investigate the flaky test") });
    // Wait until the model has asked for its first tool call: the run is truly under way.
    const saver = new RedisSaver({ redis: prefixRedis, prefix: `${prefix}:ckpt` });
    const messagesNow = async () => ((await saver.getTuple({ configurable: { thread_id: thread } }))?.checkpoint.channel_values as { messages?: BaseMessage[] } | undefined)?.messages ?? [];
    for (let i = 0; !(await messagesNow()).some((m) => m.getType() === "ai"); i++) {
      if (i > 600) throw new Error("the first run never reached the model");
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(ownerJobId((await new RunLocks(prefixRedis, prefix, 60_000).holder(thread))!)).toBe(deliveryJobId(first.deliveryId));
    const second = await sendWebhook(proc.port!, { event: "issue_comment", payload: comment(2, "@open-swe also check the retry logic") });
    expect(await waitForJob(proc.queues.queues.agent, deliveryJobId(second.deliveryId))).toMatchObject({ returnvalue: { outcome: "follow_up" } });
    const done = await waitForJob(proc.queues.queues.agent, deliveryJobId(first.deliveryId), 60_000);
    expect(done.failedReason).toBeUndefined();

    const messages = await messagesNow();
    const kinds = messages.map((m) => `${m.getType()}:${typeof m.content === "string" ? m.content.slice(0, 40) : ""}`);
    const followUp = kinds.findIndex((k) => k.startsWith("human:Follow-up from @dana (github): also"));
    const sleptAt = kinds.findIndex((k) => k.startsWith("tool:") && k.includes("slept"));
    expect(sleptAt).toBeGreaterThan(0);
    expect(followUp).toBeGreaterThan(sleptAt);
    expect(messages.slice(followUp + 1).some((m) => m.getType() === "ai")).toBe(true);
  });

  it("a later comment on the same issue continues the same conversation and branch", async () => {
    writeFileSync(
      replay,
      JSON.stringify([
        { tool_calls: [{ name: "write_file", args: { file_path: "/workspace/CODE_OF_CONDUCT.md", content: "Be kind.\n" } }] },
        { tool_calls: [{ name: "commit_and_push", args: { message: "Add CODE_OF_CONDUCT.md" } }] },
        { tool_calls: [{ name: "open_or_update_pull_request", args: { title: "Add contributor docs", body: "Guide and code of conduct." } }] },
        { tool_calls: [{ name: "github_comment", args: { body: `Added the code of conduct to ${PR_URL}` } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "added" } }] },
      ]),
    );
    // Both tokens are still cached from the first run on this installation.
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });
    nock(API)
      .get("/repos/octo/hello/pulls")
      .query(true)
      .reply(200, [{ number: 12 }]);
    const update = nock(API)
      .patch("/repos/octo/hello/pulls/12", (b) => b.title === "Add contributor docs")
      .reply(200, { number: 12, html_url: PR_URL });
    nock(API).post("/repos/octo/hello/issues/comments/902/reactions").reply(201, {});
    nock(API).post("/repos/octo/hello/issues/8/comments").reply(201, { id: 556 });
    nock(API).patch("/repos/octo/hello/issues/comments/556").reply(200, { id: 556 });
    const res = await sendWebhook(proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 4242, number: 8, issueId: 8008, commentId: 902, body: "@open-swe also add a code of conduct" }),
    });
    const done = await waitForJob(proc.queues.queues.agent, deliveryJobId(res.deliveryId), 60_000);
    expect(done.failedReason).toBeUndefined();
    expect(update.isDone()).toBe(true);
    const branches = remote.git("branch", "--list", "open-swe/*").trim().split("\n");
    expect(branches).toHaveLength(1);
    const branch = branches[0]!.replace(/^\*?\s*/, "");
    expect(remote.git("ls-tree", "--name-only", branch).split("\n")).toEqual(expect.arrayContaining(["CONTRIBUTING.md", "CODE_OF_CONDUCT.md", "README.md"]));
    const saver = new RedisSaver({ redis: testRedis(), prefix: `${prefix}:ckpt` });
    const messages = ((await saver.getTuple({ configurable: { thread_id: threadId({ kind: "issue", issueId: 8008 }) } }))?.checkpoint.channel_values as { messages: BaseMessage[] }).messages;
    const requests = messages.filter((m) => m.getType() === "human").map((m) => String(m.content));
    expect(requests.some((r) => r.includes("add a CONTRIBUTING.md"))).toBe(true);
    expect(requests.at(-1)).toContain("also add a code of conduct");
  });
});
