import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MODEL_CALL_LIMIT_MARKER, modelCallLimit } from "../../../src/agent/middleware/model-call-limit.js";

const ping = tool(async () => "pong", { name: "ping", description: "ping", schema: z.object({}) });

describe("modelCallLimit", () => {
  it("ends the run gracefully with a message at the cap instead of throwing", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "ping", args: {} }])
      .respondWithTools([{ name: "ping", args: {} }])
      .respondWithTools([{ name: "ping", args: {} }])
      .respond(new AIMessage("never reached"));
    const agent = createAgent({ model, tools: [ping], middleware: [modelCallLimit(2)] });
    const result = await agent.invoke({ messages: [new HumanMessage("loop")] });
    expect(model.callCount).toBe(2);
    expect(result.messages.at(-1)?.text).toMatch(new RegExp(`^${MODEL_CALL_LIMIT_MARKER}`));
  });

  it("does not interfere under the cap", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "ping", args: {} }])
      .respond(new AIMessage("done"));
    const agent = createAgent({ model, tools: [ping], middleware: [modelCallLimit(5)] });
    const result = await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(result.messages.at(-1)?.text).toBe("done");
  });

  it("counts the calls of the current run from its conversation: a new request starts again, a resumed thread goes on", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "ping", args: {} }])
      .respondWithTools([{ name: "ping", args: {} }])
      .respondWithTools([{ name: "ping", args: {} }])
      .respond(new AIMessage("second run done"));
    const agent = createAgent({ model, tools: [ping], middleware: [modelCallLimit(2)], checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t" } };
    const first = await agent.invoke({ messages: [new HumanMessage("loop")] }, config);
    expect(model.callCount).toBe(2);
    expect(first.messages.at(-1)?.text).toMatch(new RegExp(`^${MODEL_CALL_LIMIT_MARKER}`));
    // A follow-up drained into the same run does not start a run: the limit still holds.
    const followUp = await agent.invoke({ messages: [new HumanMessage({ content: "and this", additional_kwargs: { follow_up: true } })] }, config);
    expect(model.callCount).toBe(2);
    expect(followUp.messages.at(-1)?.text).toMatch(new RegExp(`^${MODEL_CALL_LIMIT_MARKER}`));
    // A new request on the thread is a new run with its own calls.
    const second = await agent.invoke({ messages: [new HumanMessage("again")] }, config);
    expect(model.callCount).toBe(4);
    expect(second.messages.at(-1)?.text).toBe("second run done");
  });
});
