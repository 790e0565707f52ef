import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { modelCallLimit } from "../../../src/agent/middleware/model-call-limit.js";
import { STEP_LIMIT_TEXT, stepLimitNoticeMiddleware } from "../../../src/agent/middleware/step-limit-notice.js";

const ping = tool(async () => "pong", { name: "ping", description: "ping", schema: z.object({}) });

describe("stepLimitNoticeMiddleware", () => {
  it("tells the user when the run ended on the model-call limit", async () => {
    const notices: string[] = [];
    const model = fakeModel()
      .respondWithTools([{ name: "ping", args: {} }])
      .respondWithTools([{ name: "ping", args: {} }]);
    const agent = createAgent({ model, tools: [ping], middleware: [modelCallLimit(1), stepLimitNoticeMiddleware({ notify: async (t) => void notices.push(t) })] });
    await agent.invoke({ messages: [new HumanMessage("loop")] });
    expect(notices).toEqual([STEP_LIMIT_TEXT]);
  });

  it("stays quiet when the run finished normally", async () => {
    const notices: string[] = [];
    const model = fakeModel()
      .respondWithTools([{ name: "ping", args: {} }])
      .respond(new AIMessage("done"));
    const agent = createAgent({ model, tools: [ping], middleware: [modelCallLimit(5), stepLimitNoticeMiddleware({ notify: async (t) => void notices.push(t) })] });
    await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(notices).toEqual([]);
  });
});
