import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createDeepAgent } from "deepagents";
import { describe, expect, it } from "vitest";
import { verdictGuardMiddleware } from "../../../src/agent/guards/verdict-guard.js";

describe("verdictGuardMiddleware in a deep agent", () => {
  it("blocks the built-in execute tool before the sandbox runs the command", async () => {
    const ran: string[] = [];
    const backend = {
      id: "fake",
      execute: async (command: string) => {
        ran.push(command);
        return { output: "ok", exitCode: 0, truncated: false };
      },
    };
    const model = fakeModel()
      .respondWithTools([{ name: "execute", args: { command: "sh -c 'gh pr review 1 -a'" }, id: "x1" }])
      .respondWithTools([{ name: "execute", args: { command: "git status" }, id: "x2" }])
      .respond(new AIMessage("done"));
    const agent = createDeepAgent({ model, backend: backend as never, middleware: [verdictGuardMiddleware()] });
    const result = await agent.invoke({ messages: [{ role: "user", content: "go" }] });
    const byId = new Map(result.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, String(m.content)]));
    expect(byId.get("x1")).toContain("publish_review");
    expect(ran).toEqual(["git status"]);
  });
});
