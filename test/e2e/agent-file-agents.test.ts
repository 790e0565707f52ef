import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisSaver } from "../../src/agent/checkpoint/redis-saver.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { RunRecords } from "../../src/store/run-records.js";
import { threadId } from "../../src/shared/thread-id.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { issueCommentPayload, mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";

const API = "https://api.github.com";
const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], { cwd, encoding: "utf8" });

/** Commits `files` onto `branch` of the bare remote (created from main when new). */
function pushFiles(bare: string, branch: string, files: Record<string, string>): void {
  const work = mkdtempSync(join(tmpdir(), "push-"));
  git(work, "clone", "-q", bare, ".");
  git(work, "checkout", "-q", "-B", branch);
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(work, p)), { recursive: true });
    writeFileSync(join(work, p), c);
  }
  git(work, "add", "-A");
  git(work, "commit", "-qm", "files");
  git(work, "push", "-q", "origin", branch);
}

async function messagesOf(app: E2eApp, issueId: number): Promise<BaseMessage[]> {
  const saver = new RedisSaver({ redis: testRedis(), prefix: `${app.prefix}:ckpt` });
  return ((await saver.getTuple({ configurable: { thread_id: threadId({ kind: "issue", issueId }) } }))?.checkpoint.channel_values as { messages: BaseMessage[] }).messages;
}

describe("e2e: the repository's file agents in a GitHub run, and its budget", () => {
  let app: E2eApp;
  let remote: ReturnType<typeof makeBareRemote>;
  beforeAll(async () => {
    remote = makeBareRemote("octo", "hello");
    pushFiles(remote.bare, "main", {
      ".agents/agents/checker.md": "---\ndescription: runs one check\ntools: execute\n---\nRun exactly one check.\n",
      ".agents/agents/broken.md": "---\nmax_iteration_per_run: many\n---\nx\n",
    });
    app = await startE2eApp(remote.template, "file-agents");
  });
  afterAll(async () => app?.stop());

  it("the parent delegates to the committed agent; agent.max_budget_usd stops the run; the reply names the skipped file and what was spent", async () => {
    const priced = { model: "anthropic:claude-sonnet-4-6" };
    writeFileSync(
      app.replay,
      JSON.stringify([
        { tool_calls: [{ name: "task", args: { description: "check the readme", subagent_type: "checker" } }], usage: { input_tokens: 10_000, output_tokens: 100 }, ...priced },
        { tool_calls: [{ name: "execute", args: { command: "test -f README.md && echo present" } }], usage: { input_tokens: 10_000, output_tokens: 100 }, ...priced },
        { text: "README.md is present.", usage: { input_tokens: 10_000, output_tokens: 100 }, ...priced },
        // $0.0945 spent after three turns: the parent's next call would pass $0.095.
        { tool_calls: [{ name: "github_comment", args: { body: "never posted" } }] },
      ]),
    );
    mockInstallationToken(7171, 2);
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(200, "agent:\n  max_budget_usd: 0.095\n");
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });
    nock(API).post("/repos/octo/hello/issues/comments/91/reactions").reply(201, {});
    let reply = "";
    nock(API)
      .post("/repos/octo/hello/issues/5/comments", (b: { body: string }) => ((reply = b.body), true))
      .reply(201, { id: 95 });
    const res = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 7171, number: 5, issueId: 5005, commentId: 91, body: "@open-swe check the readme --context README.md" }),
    });
    const done = await waitForJob(app.proc.queues.queues.agent, deliveryJobId(res.deliveryId), 60_000);
    expect(done.failedReason).toBeUndefined();
    const messages = await messagesOf(app, 5005);
    // --context in the comment: the committed file rides along with the task, read from the mirror.
    expect(messages[0]!.content).toEqual([
      { type: "text", text: expect.stringContaining("check the readme --context README.md") },
      { type: "text", text: '<context_file path="README.md">\n# hello\n\n</context_file>' },
    ]);
    expect(messages.filter((m) => ToolMessage.isInstance(m) && m.name === "task").map((m) => m.text)).toEqual(["README.md is present."]);
    const record = await new RunRecords(testRedis(), app.prefix).get(deliveryJobId(res.deliveryId));
    expect(record).toMatchObject({ outcome: "budget_exceeded", modelCalls: 3, costUsd: 0.0945 });
    expect(record?.toolCounts).toMatchObject({ task: 1, execute: 1 });
    expect(reply).toContain("Skipped agent file(s) that could not be loaded:\n- `.agents/agents/broken.md`: max_iteration_per_run:");
    expect(reply).toContain("I stopped before a model call that would have taken this run past its budget.");
    expect(reply).toContain("Spent: $0.0945.");
  });
});
