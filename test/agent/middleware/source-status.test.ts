import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { sourceStatusMiddleware, type AgentStatus } from "../../../src/agent/middleware/source-status.js";

describe("sourceStatusMiddleware", () => {
  it("reports thinking before each model call, each tool, and done", async () => {
    const statuses: AgentStatus[] = [];
    const ls = tool(async () => "a.ts", { name: "ls", description: "ls", schema: z.object({}) });
    const model = fakeModel()
      .respondWithTools([{ name: "ls", args: {} }])
      .respond(new AIMessage("done"));
    const agent = createAgent({ model, tools: [ls], middleware: [sourceStatusMiddleware({ onStatus: (s) => void statuses.push(s) })] });
    await agent.invoke({ messages: [new HumanMessage("list")] });
    expect(statuses).toEqual([{ kind: "thinking" }, { kind: "tool", name: "ls" }, { kind: "thinking" }, { kind: "done" }]);
  });

  it("does not fail the run when the status update fails", async () => {
    const agent = createAgent({
      model: fakeModel().respond(new AIMessage("ok")),
      tools: [],
      middleware: [sourceStatusMiddleware({ onStatus: () => Promise.reject(new Error("slack 500")) })],
    });
    expect((await agent.invoke({ messages: [new HumanMessage("hi")] })).messages.at(-1)?.text).toBe("ok");
  });
});
