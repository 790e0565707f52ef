import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { completionFacts } from "../../src/runs/completion-facts.js";

describe("completionFacts (pure)", () => {
  const messages = [
    new HumanMessage("Request from @dana:\nfix it"),
    new AIMessage({
      content: "",
      tool_calls: [
        { name: "task", args: { subagent_type: "code-reviewer", description: "x" }, id: "1" },
        { name: "execute", args: { command: "ls" }, id: "2" },
      ],
    }),
    new ToolMessage({ content: "ok", tool_call_id: "1" }),
    new AIMessage({
      content: "",
      tool_calls: [
        { name: "task", args: { subagent_type: "general-purpose" }, id: "3" },
        { name: "task", args: { subagent_type: "code-reviewer" }, id: "4" },
      ],
    }),
  ];
  it("counts messages, takes the request (else the first human message) truncated, lists subagents once each in order", () => {
    expect(completionFacts("fix the flaky test\nand more", messages)).toEqual({
      messageCount: 4,
      title: "fix the flaky test",
      firstUserMessage: "fix the flaky test\nand more",
      subagentIds: ["code-reviewer", "general-purpose"],
    });
    expect(completionFacts("", messages)).toMatchObject({ title: "Request from @dana:", firstUserMessage: "Request from @dana:\nfix it" });
    expect(completionFacts("x".repeat(600), []).firstUserMessage).toHaveLength(500);
    expect(completionFacts("", [])).toEqual({ messageCount: 0, title: "", firstUserMessage: "", subagentIds: [] });
  });
});
