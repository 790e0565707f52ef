import { AIMessage, HumanMessage, ToolMessage, type UsageMetadata } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ensureNoEmptyMessageMiddleware } from "../../../src/agent/middleware/ensure-no-empty-message.js";

const pushed: string[] = [];
const commitAndPush = tool(
  async () => {
    pushed.push("x");
    return "pushed open-swe/abc-branch";
  },
  { name: "commit_and_push", description: "push", schema: z.object({}) },
);
const reply = tool(async ({ text }) => `replied: ${text}`, { name: "github_comment", description: "reply", schema: z.object({ text: z.string() }) });
const deps = { replyTools: ["github_comment"] };

function withUsage(m: AIMessage, input: number, output: number): AIMessage {
  (m as unknown as { usage_metadata: UsageMetadata }).usage_metadata = { input_tokens: input, output_tokens: output, total_tokens: input + output };
  return m;
}

function toolNames(messages: readonly unknown[]): string[] {
  return messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => m.name ?? "?");
}

describe("ensureNoEmptyMessageMiddleware", () => {
  it("re-injects a no_op call when the model stops having neither replied nor confirmed, and the run continues", async () => {
    const model = fakeModel()
      .respond(withUsage(new AIMessage({ content: "", id: "m1" }), 900, 3))
      .respondWithTools([{ name: "commit_and_push", args: {} }])
      .respond(new AIMessage({ content: "Pushed it.", id: "m3" }))
      .respondWithTools([{ name: "github_comment", args: { text: "done, PR: https://github.com/o/r/pull/1" } }])
      .respond(new AIMessage({ content: "All done.", id: "m5" }));
    const agent = createAgent({ model, tools: [commitAndPush, reply], middleware: [ensureNoEmptyMessageMiddleware(deps)] });
    const result = await agent.invoke({ messages: [new HumanMessage("fix it")] });
    // Pushing is not replying: the text-only turn after the push is nudged too.
    expect(toolNames(result.messages)).toEqual(["no_op", "commit_and_push", "no_op", "github_comment"]);
    const nudge = result.messages.find((m) => ToolMessage.isInstance(m) && m.name === "no_op");
    expect(nudge?.text).toMatch(/the user has not heard from you/);
    // The empty assistant message was replaced, not kept next to its rewrite, and keeps its usage.
    const first = result.messages.filter((m) => AIMessage.isInstance(m))[0] as AIMessage;
    expect(first.tool_calls?.map((c) => c.name)).toEqual(["no_op"]);
    expect(first.content).toBe("(no message)");
    expect((first as unknown as { usage_metadata?: UsageMetadata }).usage_metadata).toMatchObject({ input_tokens: 900, output_tokens: 3 });
    expect(result.messages.at(-1)?.text).toBe("All done.");
    expect(model.callCount).toBe(5);
  });

  it("a question-only run ends once it has replied: no push, no confirmation needed", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "github_comment", args: { text: "Yes: it is configured in ci.yml." } }])
      .respond(new AIMessage("Answered."));
    const agent = createAgent({ model, tools: [commitAndPush, reply], middleware: [ensureNoEmptyMessageMiddleware(deps)] });
    const result = await agent.invoke({ messages: [new HumanMessage("is X configured?")] });
    expect(toolNames(result.messages)).toEqual(["github_comment"]);
    expect(result.messages.at(-1)?.text).toBe("Answered.");
    expect(model.callCount).toBe(2);
  });

  it("an empty turn after the reply becomes a synthetic confirming_completion: the run ends with no empty assistant message", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "github_comment", args: { text: "Done." } }])
      .respond(new AIMessage({ content: "", id: "e2" }));
    const agent = createAgent({ model, tools: [reply], middleware: [ensureNoEmptyMessageMiddleware(deps)] });
    const result = await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(toolNames(result.messages)).toEqual(["github_comment", "confirming_completion"]);
    const last = result.messages.filter((m) => AIMessage.isInstance(m)).at(-1) as AIMessage;
    expect(last.tool_calls?.map((c) => c.name)).toEqual(["confirming_completion"]);
    expect(last.content).toBe("(no message)");
    expect(model.callCount).toBe(2);
  });

  it("lets the run end once the agent confirms completion, without another model call", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "github_comment", args: { text: "It is already configured; no change needed." } }])
      .respondWithTools([{ name: "confirming_completion", args: { summary: "answered the question" } }]);
    const agent = createAgent({ model, tools: [reply], middleware: [ensureNoEmptyMessageMiddleware(deps)] });
    const result = await agent.invoke({ messages: [new HumanMessage("is X configured?")] });
    expect(toolNames(result.messages)).toEqual(["github_comment", "confirming_completion"]);
    expect(model.callCount).toBe(2);
  });

  it("gives up after maxNudges in a row so a stuck model cannot loop forever", async () => {
    const model = fakeModel().respond(new AIMessage("a")).respond(new AIMessage("b")).respond(new AIMessage("c"));
    const agent = createAgent({ model, tools: [reply], middleware: [ensureNoEmptyMessageMiddleware({ ...deps, maxNudges: 2 })] });
    const result = await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(toolNames(result.messages)).toEqual(["no_op", "no_op"]);
    expect(result.messages.at(-1)?.text).toBe("c");
  });

  it("with no maxNudges given, the default cap is 3 nudges in a row", async () => {
    const model = fakeModel().respond(new AIMessage("a")).respond(new AIMessage("b")).respond(new AIMessage("c")).respond(new AIMessage("d")).respond(new AIMessage("e"));
    const agent = createAgent({ model, tools: [reply], middleware: [ensureNoEmptyMessageMiddleware(deps)] });
    const result = await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(toolNames(result.messages)).toEqual(["no_op", "no_op", "no_op"]);
    expect(result.messages.at(-1)?.text).toBe("d");
  });
});

describe("currentRunMessages", () => {
  it("starts at the last user request, skipping mid-run follow-ups", async () => {
    const { currentRunMessages } = await import("../../../src/agent/current-run-messages.js");
    const old = new HumanMessage("first task");
    const now = new HumanMessage("second task");
    const follow = new HumanMessage({ content: "also this", additional_kwargs: { follow_up: true } });
    const done = new ToolMessage({ content: "ok", tool_call_id: "1", name: "confirming_completion" });
    expect(currentRunMessages([old, done, now, new AIMessage("x"), follow])).toEqual([now, new AIMessage("x"), follow]);
    expect(currentRunMessages([done])).toEqual([done]);
  });
});
