import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
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
});
