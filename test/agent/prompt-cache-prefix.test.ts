import { HumanMessage } from "@langchain/core/messages";
import nock from "nock";
import { describe, expect, it } from "vitest";
import { createOpenSweAgent } from "../../src/agent/create-agent.js";
import { buildAgentMiddleware } from "../../src/agent/middleware/build-agent-middleware.js";
import { createChatModel } from "../../src/agent/model/create-chat-model.js";
import { resolveModelSettings } from "../../src/agent/model/resolve-model-settings.js";
import { renderPrompt } from "../../src/agent/prompts.js";
import { SSE_HEADERS, anthropicSse } from "./anthropic-sse.js";
import { runTools } from "../../bench/run-tools.js";

interface AnthropicRequest {
  system: unknown;
  tools: Array<{ name: string }>;
  messages: unknown[];
}

function toolUse(id: string, name: string, input: object): string {
  return anthropicSse([{ type: "tool_use", id: `toolu_${id}`, name, input }], { input_tokens: 1200, output_tokens: 20 });
}

/** cache_control marks move to the newest message every turn; the content they mark must not. */
function withoutCacheControl(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, v: unknown) => (key === "cache_control" ? undefined : v));
}

describe("prompt caching", () => {
  it("keeps system prompt and tool definitions byte-identical across turns and across runs of one repo", async () => {
    const bodies: AnthropicRequest[] = [];
    const replies = [toolUse("1", "ls", { path: "/" }), toolUse("2", "confirming_completion", { summary: "looked" }), toolUse("3", "confirming_completion", { summary: "other task" })];
    nock("https://api.anthropic.com")
      .post("/v1/messages")
      .times(3)
      .reply(
        200,
        (_uri, body) => {
          bodies.push(body as AnthropicRequest);
          return replies[bodies.length - 1] ?? "";
        },
        SSE_HEADERS,
      );

    const model = await createChatModel(resolveModelSettings({ thread: { modelId: "claude-sonnet-4-6", effort: "none" } }), { anthropicApiKey: "sk-test" });
    const systemPrompt = renderPrompt("agent", { repo: "acme/widgets", workspace_root: "/", default_branch: "main" });
    const build = (n: number) =>
      createOpenSweAgent({
        model,
        systemPrompt,
        tools: runTools(n),
        middleware: buildAgentMiddleware({ modelCallLimit: 10, workspaceRoot: "/", readWorkspaceFile: async () => undefined, drainFollowUps: async () => [], notifyStepLimit: async () => {} }),
      });
    await build(1).invoke({ messages: [new HumanMessage("list the files")] }, { configurable: { thread_id: "a" } });
    await build(2).invoke({ messages: [new HumanMessage("a different task")] }, { configurable: { thread_id: "b" } });

    expect(bodies).toHaveLength(3);
    const [turn1, turn2, otherRun] = bodies as [AnthropicRequest, AnthropicRequest, AnthropicRequest];
    expect(JSON.stringify(turn2.system)).toBe(JSON.stringify(turn1.system));
    expect(JSON.stringify(turn2.tools)).toBe(JSON.stringify(turn1.tools));
    expect(JSON.stringify(otherRun.system)).toBe(JSON.stringify(turn1.system));
    expect(JSON.stringify(otherRun.tools)).toBe(JSON.stringify(turn1.tools));
    // Turn 2 extends turn 1's conversation without rewriting it.
    expect(withoutCacheControl(turn2.messages.slice(0, turn1.messages.length))).toEqual(withoutCacheControl(turn1.messages));
    // The provider is asked to cache, and the tools the issue requires are there.
    expect(JSON.stringify(turn1)).toContain('"cache_control":{"type":"ephemeral"');
    expect(turn1.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        "write_todos",
        "task",
        "read_file",
        "write_file",
        "edit_file",
        "http_request",
        "fetch_url",
        "no_op",
        "confirming_completion",
        "commit_and_push",
        "open_or_update_pull_request",
      ]),
    );
  });
});
