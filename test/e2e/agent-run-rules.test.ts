import { writeFileSync } from "node:fs";
import type { BaseMessage } from "@langchain/core/messages";
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

describe("e2e: a run's rules — what a push may carry, and the task subagent counted like its parent", () => {
  let app: E2eApp;
  let remote: ReturnType<typeof makeBareRemote>;
  beforeAll(async () => {
    remote = makeBareRemote("octo", "hello");
    app = await startE2eApp(remote.template, "run-rules");
  });
  afterAll(async () => app?.stop());

  it("a commit adding node_modules is refused with a fix the model can follow; after it, only the task's files are pushed", async () => {
    writeFileSync(
      app.replay,
      JSON.stringify([
        {
          tool_calls: [{ name: "execute", args: { command: "mkdir -p node_modules/left-pad && echo 'module.exports = 1;' > node_modules/left-pad/index.js && echo 'export const x = 1;' > app.js" } }],
        },
        { tool_calls: [{ name: "commit_and_push", args: { message: "Add app.js" } }] },
        { tool_calls: [{ name: "execute", args: { command: "git reset --soft HEAD~1 && git reset -q && echo node_modules/ >> .gitignore" } }] },
        { tool_calls: [{ name: "commit_and_push", args: { message: "Add app.js" } }] },
        { tool_calls: [{ name: "github_comment", args: { body: "Pushed app.js." } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] },
      ]),
    );
    mockInstallationToken(6161, 2);
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });
    nock(API).post("/repos/octo/hello/issues/comments/71/reactions").reply(201, {});
    nock(API).post("/repos/octo/hello/issues/3/comments").reply(201, { id: 81 });
    nock(API).patch("/repos/octo/hello/issues/comments/81").reply(200, { id: 81 });
    const res = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 6161, number: 3, issueId: 3003, commentId: 71, body: "@open-swe add app.js" }),
    });
    const done = await waitForJob(app.proc.queues.queues.agent, deliveryJobId(res.deliveryId), 60_000);
    expect(done.failedReason).toBeUndefined();

    const saver = new RedisSaver({ redis: testRedis(), prefix: `${app.prefix}:ckpt` });
    const messages = ((await saver.getTuple({ configurable: { thread_id: threadId({ kind: "issue", issueId: 3003 }) } }))?.checkpoint.channel_values as { messages: BaseMessage[] }).messages;
    const pushes = messages.filter((m) => m.getType() === "tool" && m.name === "commit_and_push").map((m) => String(m.content));
    expect(pushes[0]).toMatch(/^Push refused: nothing was pushed, because it adds dependency or build output: node_modules\/ \(1 file\)/);
    expect(pushes[0]).toMatch(/git reset --soft [0-9a-f]{40} && git reset -q/);
    expect(pushes[1]).toMatch(/^Pushed 1 commit\(s\) .* 2 file\(s\): \.gitignore, app\.js$/);
    const branch = remote
      .git("branch", "--list", "open-swe/*")
      .trim()
      .replace(/^\*?\s*/, "");
    expect(remote.git("ls-tree", "-r", "--name-only", branch).trim().split("\n").sort()).toEqual([".gitignore", "README.md", "app.js"]);
  });

  it("the task subagent's model calls, tokens and tool calls are in the run record", async () => {
    writeFileSync(
      app.replay,
      JSON.stringify([
        { tool_calls: [{ name: "task", args: { description: "find where the version is set", subagent_type: "general-purpose" } }], usage: { input_tokens: 1000, output_tokens: 10 } },
        // The subagent's two turns: they never reach the main conversation.
        { tool_calls: [{ name: "execute", args: { command: "grep -rn version README.md || true" } }], usage: { input_tokens: 2000, output_tokens: 20 } },
        { text: "It is not set anywhere.", usage: { input_tokens: 2500, output_tokens: 5 } },
        { tool_calls: [{ name: "github_comment", args: { body: "The version is not set anywhere." } }], usage: { input_tokens: 1500, output_tokens: 10 } },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "answered" } }], usage: { input_tokens: 1600, output_tokens: 5 } },
      ]),
    );
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });
    nock(API).post("/repos/octo/hello/issues/comments/72/reactions").reply(201, {});
    nock(API).post("/repos/octo/hello/issues/4/comments").reply(201, { id: 82 });
    nock(API).patch("/repos/octo/hello/issues/comments/82").reply(200, { id: 82 });
    const res = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 6161, number: 4, issueId: 4004, commentId: 72, body: "@open-swe where is the version set?" }),
    });
    const done = await waitForJob(app.proc.queues.queues.agent, deliveryJobId(res.deliveryId), 60_000);
    expect(done.failedReason).toBeUndefined();
    const record = await new RunRecords(testRedis(), app.prefix).get(deliveryJobId(res.deliveryId));
    // A question answered with a reply: completed, no PR.
    expect(record).toMatchObject({ outcome: "completed", modelCalls: 5, inputTokens: 8600, outputTokens: 50 });
    expect(record?.toolCounts).toMatchObject({ task: 1, execute: 1, github_comment: 1, confirming_completion: 1 });
  });
});
