import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { verdictGuardMiddleware } from "../../../src/agent/guards/verdict-guard.js";

function fakeExecute(ran: string[]) {
  return tool(
    async ({ command }: { command: string }) => {
      ran.push(command);
      return `ran: ${command}`;
    },
    { name: "execute", description: "Run a shell command", schema: z.object({ command: z.string() }) },
  );
}

describe("verdictGuardMiddleware", () => {
  it("blocks a shell verdict with a non-recoverable error naming publish_review, and lets other commands run", async () => {
    const ran: string[] = [];
    const model = fakeModel()
      .respondWithTools([{ name: "execute", args: { command: "GH_TOKEN=dummy bash -c 'gh pr review 5 --approve'" }, id: "call-1" }])
      .respondWithTools([{ name: "execute", args: { command: "gh pr review 5 --comment -b 'approve later'" }, id: "call-2" }])
      .respond(new AIMessage("done"));
    const agent = createAgent({ model, tools: [fakeExecute(ran)], middleware: [verdictGuardMiddleware()] });

    const result = await agent.invoke({ messages: [{ role: "user", content: "review the PR" }] });

    const toolMessages = result.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
    expect(toolMessages).toHaveLength(2);
    const [blocked, passed] = toolMessages;
    expect(blocked?.tool_call_id).toBe("call-1");
    expect(blocked?.status).toBe("error");
    expect(String(blocked?.content)).toContain("publish_review");
    expect(String(blocked?.content)).toContain("non-recoverable");
    expect(passed?.tool_call_id).toBe("call-2");
    expect(String(passed?.content)).toContain("ran: gh pr review 5 --comment");
    expect(ran).toEqual(["gh pr review 5 --comment -b 'approve later'"]);
  });

  it("blocks an unknowable review POST too", async () => {
    const ran: string[] = [];
    const model = fakeModel()
      .respondWithTools([{ name: "execute", args: { command: "gh api repos/o/r/pulls/5/reviews --input body.json" }, id: "c" }])
      .respond(new AIMessage("done"));
    const agent = createAgent({ model, tools: [fakeExecute(ran)], middleware: [verdictGuardMiddleware()] });
    const result = await agent.invoke({ messages: [{ role: "user", content: "go" }] });
    const msg = result.messages.find((m): m is ToolMessage => ToolMessage.isInstance(m));
    expect(String(msg?.content)).toContain("cannot be verified");
    expect(ran).toEqual([]);
  });
});
