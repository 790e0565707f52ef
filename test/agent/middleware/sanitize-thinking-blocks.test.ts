import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { sanitizeThinkingBlocks, sanitizeThinkingBlocksMiddleware } from "../../../src/agent/middleware/sanitize-thinking-blocks.js";

describe("sanitizeThinkingBlocks", () => {
  it.each<[string, AIMessage["content"], AIMessage["content"]]>([
    [
      "drops an empty thinking block",
      [
        { type: "thinking", thinking: "", signature: "s" },
        { type: "text", text: "hi" },
      ],
      [{ type: "text", text: "hi" }],
    ],
    [
      "drops a whitespace thinking block",
      [
        { type: "thinking", thinking: "  \n" },
        { type: "text", text: "hi" },
      ],
      [{ type: "text", text: "hi" }],
    ],
    [
      "drops redacted thinking without data",
      [
        { type: "redacted_thinking", data: "" },
        { type: "text", text: "x" },
      ],
      [{ type: "text", text: "x" }],
    ],
    [
      "keeps real thinking",
      [
        { type: "thinking", thinking: "plan", signature: "s" },
        { type: "text", text: "hi" },
      ],
      [
        { type: "thinking", thinking: "plan", signature: "s" },
        { type: "text", text: "hi" },
      ],
    ],
    ["leaves an empty string when nothing else remains", [{ type: "thinking", thinking: "" }], ""],
    ["leaves string content alone", "plain", "plain"],
  ])("%s", (_name, content, expected) => {
    const [out] = sanitizeThinkingBlocks([new AIMessage({ content, id: "a1" })]);
    expect(out?.content).toEqual(expected);
    expect(out?.id).toBe("a1");
  });
});

describe("sanitizeThinkingBlocksMiddleware", () => {
  it("strips empty thinking from the history the provider receives", async () => {
    const seen: BaseMessage[][] = [];
    const model = fakeModel().respond((messages: BaseMessage[]) => {
      seen.push(messages);
      return new AIMessage("ok");
    });
    const history = [
      new HumanMessage("a"),
      new AIMessage({
        content: [
          { type: "thinking", thinking: "" },
          { type: "text", text: "earlier" },
        ],
      }),
      new HumanMessage("b"),
    ];
    const agent = createAgent({ model, tools: [], middleware: [sanitizeThinkingBlocksMiddleware()] });
    await agent.invoke({ messages: history });
    expect(seen[0]?.[1]?.content).toEqual([{ type: "text", text: "earlier" }]);
  });
});
