import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "langchain";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/paths.js";
import { z } from "zod";
import { RedisSaver } from "../../src/agent/checkpoint/redis-saver.js";
import { createOpenSweAgent } from "../../src/agent/create-agent.js";
import { buildAgentMiddleware } from "../../src/agent/middleware/build-agent-middleware.js";
import { parseRepoConfig } from "../../src/config/repo-config.js";
import { resolveRunModel } from "../../src/runs/resolve-run-model.js";
import { renderPrompt } from "../../src/agent/prompts.js";
import { buildRunRecord, formatRunSummary } from "../../src/agent/run-record.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

function stack(followUps: string[]) {
  return buildAgentMiddleware({
    modelCallLimit: 20,
    workspaceRoot: "/",
    readWorkspaceFile: async () => undefined,
    drainFollowUps: async () => followUps.splice(0),
    notifyStepLimit: async () => {},
  });
}

const replies: string[] = [];
const githubComment = tool(
  async ({ body }) => {
    replies.push(body);
    return "comment posted: https://github.com/o/r/issues/4#issuecomment-1";
  },
  { name: "github_comment", description: "Reply on the issue", schema: z.object({ body: z.string() }) },
);

describe("createOpenSweAgent", () => {
  it("writes a file with deepagents' tools, replies, and a follow-up run continues the same checkpointed conversation", async () => {
    const checkpointer = new RedisSaver({ redis: testRedis(), prefix: uniquePrefix() });
    const systemPrompt = renderPrompt("agent", { repo: "o/r", workspace_root: "/", default_branch: "main" });
    const config = { configurable: { thread_id: "thread-contrib" } };

    const first = fakeModel()
      .respondWithTools([{ name: "write_file", args: { file_path: "/CONTRIBUTING.md", content: "# Contributing\n" } }])
      .respondWithTools([{ name: "github_comment", args: { body: "Added CONTRIBUTING.md" } }])
      .respondWithTools([{ name: "confirming_completion", args: { summary: "added CONTRIBUTING.md" } }]);
    const agent1 = createOpenSweAgent({ model: first, systemPrompt, tools: [githubComment], middleware: stack([]), checkpointer });
    const r1 = await agent1.invoke({ messages: [new HumanMessage("add a CONTRIBUTING.md")] }, config);
    expect(Object.keys((r1 as unknown as { files: Record<string, unknown> }).files)).toEqual(["/CONTRIBUTING.md"]);
    expect(replies).toEqual(["Added CONTRIBUTING.md"]);
    expect(first.callCount).toBe(3);
    // The todo tool and the task (subagent) tool are on, as the issue asks.
    expect(first.calls[0]?.messages[0]?.text).toContain("write_todos");

    // The earlier run's confirmation does not count for this run: the model must confirm again.
    const second = fakeModel()
      .respond(
        (messages) =>
          new AIMessage(
            `history: ${messages
              .filter((m) => HumanMessage.isInstance(m))
              .map((m) => m.text)
              .join(" | ")}`,
          ),
      )
      // An explicit id: the fake numbers its messages per model, and "1" is already in this thread's history.
      .respond(new AIMessage({ content: "", id: "run2-confirm", tool_calls: [{ name: "confirming_completion", args: { summary: "answered" }, id: "tc-run2", type: "tool_call" }] }));
    const agent2 = createOpenSweAgent({ model: second, systemPrompt, tools: [githubComment], middleware: stack([]), checkpointer });
    const r2 = await agent2.invoke({ messages: [new HumanMessage("also mention the code of conduct")] }, config);
    const texts = r2.messages.map((m) => m.text);
    expect(texts).toContain("history: add a CONTRIBUTING.md | also mention the code of conduct");
    expect(
      r2.messages
        .filter((m) => ToolMessage.isInstance(m))
        .map((m) => m.name)
        .slice(-2),
    ).toEqual(["no_op", "confirming_completion"]);
    expect(r2.messages.some((m) => ToolMessage.isInstance(m) && m.name === "write_file")).toBe(true);
  });

  it("runs a recorded script offline through the replay provider and records the run as replayed", async () => {
    const run = await resolveRunModel({
      role: "agent",
      profile: { autoFixCi: false, autoReview: true, prsAsMe: false },
      team: {},
      repoConfig: parseRepoConfig({}),
      config: { model: `replay:${join(ROOT, "test/agent/model/fixtures/two-turns.json")}` },
    });
    const systemPrompt = renderPrompt("agent", { repo: "o/r", workspace_root: "/", default_branch: "main" });
    const agent = createOpenSweAgent({ model: run.model, systemPrompt, tools: [githubComment], middleware: stack([]) });
    const startedAt = new Date();
    const result = await agent.invoke({ messages: [new HumanMessage("add a CONTRIBUTING.md")] }, { configurable: { thread_id: "replay-1" } });
    expect(Object.keys((result as unknown as { files: Record<string, unknown> }).files)).toEqual(["/CONTRIBUTING.md"]);
    const record = buildRunRecord({ threadId: "replay-1", trigger: "cli", settings: run.settings, messages: result.messages, startedAt, finishedAt: new Date() });
    expect(record).toMatchObject({ replayed: true, outcome: "completed", modelCalls: 2, toolCounts: { write_file: 1, confirming_completion: 1 } });
    expect(formatRunSummary(record)).toMatch(/^replayed run \(no model was called\) · 2 calls/);
  });
});
