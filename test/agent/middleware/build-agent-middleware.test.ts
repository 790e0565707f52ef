import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildAgentMiddleware, type AgentMiddlewareDeps } from "../../../src/agent/middleware/build-agent-middleware.js";
import { testRedis } from "../../helpers/redis.js";
import { STEP_LIMIT_TEXT } from "../../../src/agent/middleware/step-limit-notice.js";
import { createOpenSweAgent } from "../../../src/agent/create-agent.js";

function deps(over: Partial<AgentMiddlewareDeps> = {}): AgentMiddlewareDeps {
  return {
    modelCallLimit: 10,
    workspaceRoot: "/ws",
    readWorkspaceFile: async () => undefined,
    drainFollowUps: async () => [],
    notifyStepLimit: async () => {},
    ...over,
  };
}

describe("buildAgentMiddleware", () => {
  it("returns the stack in the issue's order", () => {
    const names = buildAgentMiddleware(deps({ onStatus: () => {}, fallbackModel: fakeModel(), idempotency: { redis: testRedis(), prefix: "p" } })).map((m) => m.name);
    expect(names).toEqual([
      "SanitizeToolInputsMiddleware",
      "ModelCallLimitMiddleware",
      "toolErrorMiddleware",
      "ScopedAgentsMdMiddleware",
      "FollowUpQueueMiddleware",
      "SourceStatusMiddleware",
      "EnsureNoEmptyMessageMiddleware",
      "StepLimitNoticeMiddleware",
      "SandboxCircuitBreakerMiddleware",
      "IdempotentToolCallsMiddleware",
      "ModelFallbackMiddleware",
      "SanitizeThinkingBlocksMiddleware",
    ]);
  });

  it("leaves out status and fallback when not configured", () => {
    const names = buildAgentMiddleware(deps()).map((m) => m.name);
    expect(names).not.toContain("SourceStatusMiddleware");
    expect(names).not.toContain("ModelFallbackMiddleware");
    expect(names).toHaveLength(9);
  });

  it("works as a whole: a follow-up reaches the model, a failing push is reported, the step limit ends the run with a notice", async () => {
    const notices: string[] = [];
    const queue = ["please also add a test"];
    const push = tool(
      async () => {
        throw new Error("remote rejected");
      },
      { name: "commit_and_push", description: "push", schema: z.object({}) },
    );
    const model = fakeModel()
      .respondWithTools([{ name: "commit_and_push", args: {} }])
      .respond(new AIMessage("I stopped early."))
      .respond(new AIMessage("unreachable"));
    const agent = createAgent({
      model,
      tools: [push],
      middleware: buildAgentMiddleware(deps({ modelCallLimit: 2, threadId: "t1", drainFollowUps: async () => queue.splice(0), notifyStepLimit: async (t) => void notices.push(t) })),
    });
    const result = await agent.invoke({ messages: [new HumanMessage("ship it")] });
    const kinds = result.messages.map((m) => (ToolMessage.isInstance(m) ? `tool:${m.name}:${m.status}` : `${m.type}:${m.text.slice(0, 24)}`));
    expect(kinds).toEqual([
      "human:ship it",
      "human:please also add a test",
      // The fake model echoes the text it was sent: the follow-up was in the first request.
      "ai:ship it-please also add ",
      "tool:commit_and_push:error",
      "ai:I stopped early.",
      "tool:no_op:success",
      "ai:Model call limit reached",
    ]);
    expect(notices).toEqual([STEP_LIMIT_TEXT]);
    expect(model.callCount).toBe(2);
  });

  it("adds one graph node around the model per step (the follow-up drain): every node is a checkpoint written at every step", () => {
    const agent = createOpenSweAgent({
      model: fakeModel(),
      systemPrompt: "s",
      tools: [],
      middleware: buildAgentMiddleware(deps({ onStatus: () => {}, fallbackModel: fakeModel(), idempotency: { redis: testRedis(), prefix: "p" }, budgetUsd: 5 })),
    });
    const nodes = Object.keys((agent as unknown as { graph: { nodes: Record<string, unknown> } }).graph.nodes);
    // Status and the sandbox breaker act inside the model's node (wrapModelCall); only a hook that changes
    // the state before the call (the drained follow-ups) needs a node, and so a checkpoint, of its own.
    expect(nodes.filter((n) => n.endsWith(".before_model"))).toEqual(["FollowUpQueueMiddleware.before_model"]);
    // The call limit, the budget, the no-empty-message rewrite and the todo list's one-call-per-turn check
    // act inside the model's or the tools' node: no node after the model; before the run, none of ours.
    expect(nodes.filter((n) => n.endsWith(".after_model"))).toEqual([]);
    expect(nodes.filter((n) => n.endsWith(".before_agent")).sort()).toEqual(["FilesystemMiddleware.before_agent", "patchToolCallsMiddleware.before_agent"]);
  });
});
