import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createDeepAgent } from "deepagents";
import { todoListMiddleware, tool, type AgentMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { RedisSaver } from "../../src/agent/checkpoint/redis-saver.js";
import { invokeAgent } from "../../src/runs/invoke-agent.js";
import { useLocalSandbox } from "../helpers/local-sandbox.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

describe("a run resumed by a newer version whose graph lost the node its checkpoint waited in", () => {
  const box = useLocalSandbox("upgrade");

  it("runs the tool calls the model had asked for, once, and goes on", async () => {
    const checkpointer = new RedisSaver({ redis: testRedis(), prefix: uniquePrefix() });
    const ran: string[] = [];
    const work = tool(async ({ n }) => (ran.push(n), `did ${n}`), { name: "work", description: "does work n", schema: z.object({ n: z.string() }) });
    const model = fakeModel()
      .respondWithTools([{ name: "work", args: { n: "1" }, id: "c1" }])
      .respondWithTools([{ name: "confirming_completion", args: { summary: "worked" }, id: "end" }]);
    // The earlier version: the todo list checked its calls in an after-model node, and the worker died there.
    const earlier = todoListMiddleware();
    const dying = { ...earlier, afterModel: () => Promise.reject(new Error("worker killed")) } as AgentMiddleware;
    const old = createDeepAgent({ model, tools: [work], middleware: [dying], checkpointer });
    const threadId = "gh:o/r#7";
    await expect(old.invoke({ messages: [new HumanMessage("do the work")] }, { configurable: { thread_id: threadId }, durability: "sync" })).rejects.toThrow(/worker killed/);
    expect(ran).toEqual([]);

    const result = await invokeAgent({
      model,
      sandbox: box.sb,
      tools: [work],
      middleware: { modelCallLimit: 10, drainFollowUps: async () => [], notifyStepLimit: async () => {} },
      checkpointer,
      threadId,
      prompt: { repo: "o/r", defaultBranch: "main" },
      message: new HumanMessage("do the work"),
      execTimeoutMs: 10_000,
      signal: new AbortController().signal,
      resumeIfPending: async () => true,
    });
    expect(result.error).toBeUndefined();
    expect(result.resumed).toBe(true);
    expect(ran).toEqual(["1"]);
    const shape = result.messages.map((m) =>
      HumanMessage.isInstance(m) ? `human:${m.text}` : AIMessage.isInstance(m) ? `ai:${m.tool_calls?.map((c) => c.name).join(",")}` : ToolMessage.isInstance(m) ? `tool:${m.text}` : m.getType(),
    );
    expect(shape).toEqual(["human:do the work", "ai:work", "tool:did 1", "ai:confirming_completion", expect.stringMatching(/^tool:/)]);
  });
});
