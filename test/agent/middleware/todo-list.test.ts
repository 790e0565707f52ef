import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { describe, expect, it } from "vitest";
import { createOpenSweAgent } from "../../../src/agent/create-agent.js";
import { buildAgentMiddleware } from "../../../src/agent/middleware/build-agent-middleware.js";

const stack = () => buildAgentMiddleware({ modelCallLimit: 10, workspaceRoot: "/", readWorkspaceFile: async () => undefined, drainFollowUps: async () => [], notifyStepLimit: async () => {} });

const todo = (content: string) => ({ content, status: "pending" });

describe("the todo list", () => {
  it("refuses several write_todos calls in one model turn (each gets the error, none runs) and takes one call", async () => {
    const model = fakeModel()
      .respondWithTools([
        { name: "write_todos", args: { todos: [todo("a")] }, id: "t1" },
        { name: "write_todos", args: { todos: [todo("b")] }, id: "t2" },
      ])
      .respondWithTools([{ name: "write_todos", args: { todos: [todo("c")] }, id: "t3" }])
      .respondWithTools([{ name: "confirming_completion", args: { summary: "planned" }, id: "end" }]);
    const agent = createOpenSweAgent({ model, systemPrompt: "s", tools: [], middleware: stack() });
    const out = (await agent.invoke({ messages: [new HumanMessage("plan it")] })) as unknown as { messages: unknown[]; todos: Array<{ content: string }> };
    const results = out.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m) && m.name === "write_todos");
    expect(results.map((m) => [m.tool_call_id, m.status, String(m.content).slice(0, 40)])).toEqual([
      ["t1", "error", "Error: The `write_todos` tool should nev"],
      ["t2", "error", "Error: The `write_todos` tool should nev"],
      ["t3", undefined, `Updated todo list to [{"content":"c","st`],
    ]);
    expect(out.todos.map((t) => t.content)).toEqual(["c"]);
    expect(model.callCount).toBe(3);
  });
});
