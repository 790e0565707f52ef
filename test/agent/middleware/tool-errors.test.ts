import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { sandboxCircuitBreakerMiddleware } from "../../../src/agent/middleware/sandbox-circuit-breaker.js";
import { toolErrorText, toolErrorsMiddleware } from "../../../src/agent/middleware/tool-errors.js";
import { OpenSweError } from "../../../src/errors.js";

describe("toolErrorsMiddleware", () => {
  it("turns a thrown tool error into an error tool message and lets the model go on", async () => {
    const flaky = tool(
      async () => {
        throw new OpenSweError("push_rejected", "remote rejected the push: non-fast-forward");
      },
      { name: "commit_and_push", description: "push", schema: z.object({}) },
    );
    const model = fakeModel()
      .respondWithTools([{ name: "commit_and_push", args: {}, id: "c1" }])
      .respond(new AIMessage("I will rebase."));
    const agent = createAgent({ model, tools: [flaky], middleware: [toolErrorsMiddleware()] });
    const result = await agent.invoke({ messages: [new HumanMessage("push")] });
    const msg = result.messages.find((m) => ToolMessage.isInstance(m)) as ToolMessage;
    expect(msg.status).toBe("error");
    expect(msg.tool_call_id).toBe("c1");
    expect(msg.text).toBe("Error: commit_and_push failed: remote rejected the push: non-fast-forward");
    expect(result.messages.at(-1)?.text).toBe("I will rebase.");
  });

  it("is what keeps a tool error from failing the run once another wrapToolCall middleware is in the stack", async () => {
    const failing = tool(
      async () => {
        throw new Error("sandbox unreachable");
      },
      { name: "execute", description: "run", schema: z.object({ command: z.string() }) },
    );
    const script = () =>
      fakeModel()
        .respondWithTools([{ name: "execute", args: { command: "ls" } }])
        .respond(new AIMessage("retrying later"));
    const without = createAgent({ model: script(), tools: [failing], middleware: [sandboxCircuitBreakerMiddleware()] });
    await expect(without.invoke({ messages: [new HumanMessage("go")] })).rejects.toThrow("sandbox unreachable");
    const withIt = createAgent({ model: script(), tools: [failing], middleware: [toolErrorsMiddleware(), sandboxCircuitBreakerMiddleware()] });
    const result = await withIt.invoke({ messages: [new HumanMessage("go")] });
    expect(result.messages.find((m) => ToolMessage.isInstance(m))?.text).toBe("Error: execute failed: sandbox unreachable");
  });

  it("clips very long errors", () => {
    const text = toolErrorText("execute", new Error("e".repeat(5000)));
    expect(text.length).toBeLessThan(2100);
    expect(text).toMatch(/… \[truncated\]$/);
  });
});
