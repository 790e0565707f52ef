import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { sandboxCircuitBreakerMiddleware } from "../../../src/agent/middleware/sandbox-circuit-breaker.js";
import { toolErrorsMiddleware } from "../../../src/agent/middleware/tool-errors.js";
import { ensureNoEmptyMessageMiddleware } from "../../../src/agent/middleware/ensure-no-empty-message.js";

function sandbox(outcomes: Array<"ok" | "fail">) {
  let i = 0;
  return tool(
    async () => {
      const outcome = outcomes[i++] ?? "ok";
      if (outcome === "fail") throw new Error(`sandbox connection reset (${i})`);
      return "exit 0";
    },
    { name: "execute", description: "run", schema: z.object({ command: z.string() }) },
  );
}
const run = { name: "execute", args: { command: "make" } };

describe("sandboxCircuitBreakerMiddleware", () => {
  it("ends the run with a clear message after N consecutive sandbox failures", async () => {
    const trips: string[] = [];
    const model = fakeModel().respondWithTools([run]).respondWithTools([run]).respondWithTools([run]).respond(new AIMessage("never"));
    const agent = createAgent({
      model,
      tools: [sandbox(["fail", "fail", "fail"])],
      middleware: [toolErrorsMiddleware(), sandboxCircuitBreakerMiddleware({ maxConsecutiveFailures: 3, onTrip: (m) => void trips.push(m) })],
    });
    const result = await agent.invoke({ messages: [new HumanMessage("build")] });
    expect(model.callCount).toBe(3);
    expect(result.messages.at(-1)?.text).toMatch(/^Stopping: the sandbox failed 3 times in a row \(last error: sandbox connection reset \(3\)\)/);
    expect(trips).toHaveLength(1);
  });

  it("resets the count on a success", async () => {
    const model = fakeModel().respondWithTools([run]).respondWithTools([run]).respondWithTools([run]).respondWithTools([run]).respond(new AIMessage("built"));
    const agent = createAgent({
      model,
      tools: [sandbox(["fail", "fail", "ok", "fail"])],
      middleware: [toolErrorsMiddleware(), sandboxCircuitBreakerMiddleware({ maxConsecutiveFailures: 3 })],
    });
    const result = await agent.invoke({ messages: [new HumanMessage("build")] });
    expect(result.messages.at(-1)?.text).toBe("built");
  });

  it("ignores errors the predicate does not count as sandbox failures", async () => {
    const model = fakeModel().respondWithTools([run]).respondWithTools([run]).respond(new AIMessage("carried on"));
    const agent = createAgent({
      model,
      tools: [sandbox(["fail", "fail"])],
      middleware: [toolErrorsMiddleware(), sandboxCircuitBreakerMiddleware({ maxConsecutiveFailures: 1, isSandboxFailure: () => false })],
    });
    expect((await agent.invoke({ messages: [new HumanMessage("go")] })).messages.at(-1)?.text).toBe("carried on");
  });

  it("ends the run on its message in the full stack: no nudge sends a dead sandbox's run round again", async () => {
    const model = fakeModel().respondWithTools([run]).respondWithTools([run]).respond(new AIMessage("never"));
    const agent = createAgent({
      model,
      tools: [sandbox(["fail", "fail"])],
      middleware: [toolErrorsMiddleware(), ensureNoEmptyMessageMiddleware({ replyTools: [] }), sandboxCircuitBreakerMiddleware({ maxConsecutiveFailures: 2 })],
    });
    const result = await agent.invoke({ messages: [new HumanMessage("build")] });
    expect(model.callCount).toBe(2);
    expect(result.messages.filter((m) => ToolMessage.isInstance(m) && m.name === "no_op")).toEqual([]);
    expect(result.messages.at(-1)?.text).toMatch(/^Stopping: the sandbox failed 2 times in a row/);
  });
});
