import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ensureNoEmptyMessageMiddleware } from "../../../src/agent/middleware/ensure-no-empty-message.js";
import { ReplayChatModel, parseReplayScript } from "../../../src/agent/model/replay-chat-model.js";
import { replayScriptFromMessages } from "../../../src/agent/model/replay-script-from-messages.js";

function agentWith(model: BaseChatModel, log: string[]) {
  const comment = tool(
    async ({ body }) => {
      log.push(body);
      return "posted";
    },
    { name: "github_comment", description: "reply", schema: z.object({ body: z.string() }) },
  );
  return createAgent({ model, tools: [comment], middleware: [ensureNoEmptyMessageMiddleware({ replyTools: [] })] });
}

const toolTrail = (messages: BaseMessage[]) => messages.filter((m) => ToolMessage.isInstance(m)).map((m) => `${m.name}:${m.text.slice(0, 12)}`);

describe("replayScriptFromMessages", () => {
  it("records a run so that replaying it reproduces the same tool calls", async () => {
    const original: string[] = [];
    const recorded = await agentWith(
      fakeModel()
        .respond(new AIMessage({ content: "", id: "a" }))
        .respondWithTools([{ name: "github_comment", args: { body: "done: https://github.com/o/r/pull/1" } }])
        .respondWithTools([{ name: "confirming_completion", args: { summary: "replied" } }]),
      original,
    ).invoke({ messages: [new HumanMessage("reply please")] });

    const script = parseReplayScript(JSON.parse(JSON.stringify(replayScriptFromMessages(recorded.messages))), "recorded");
    expect(script.map((t) => t.tool_calls.map((c) => c.name))).toEqual([[], ["github_comment"], ["confirming_completion"]]);

    const replayed: string[] = [];
    const replay = await agentWith(new ReplayChatModel(script, "recorded"), replayed).invoke({ messages: [new HumanMessage("reply please")] });
    expect(replayed).toEqual(original);
    expect(toolTrail(replay.messages)).toEqual(toolTrail(recorded.messages));
  });

  it("keeps text and usage, and drops the call-limit stop", () => {
    const turn = new AIMessage({ content: [{ type: "text", text: "Looking." }], tool_calls: [{ name: "ls", args: { path: "/" }, id: "c1", type: "tool_call" }] });
    (turn as unknown as { usage_metadata: object }).usage_metadata = { input_tokens: 10, output_tokens: 3, total_tokens: 13 };
    const stop = new AIMessage({ content: "Model call limit reached", response_metadata: { model_call_limit: true } });
    expect(replayScriptFromMessages([new HumanMessage("x"), turn, stop])).toEqual([
      { text: "Looking.", tool_calls: [{ name: "ls", args: { path: "/" }, id: "c1" }], usage: { input_tokens: 10, output_tokens: 3 } },
    ]);
  });
});
