import { ChatAnthropic } from "@langchain/anthropic";
import { ChatOpenAI } from "@langchain/openai";
import { HumanMessage } from "@langchain/core/messages";
import nock from "nock";
import { describe, expect, it } from "vitest";
import { createChatModel } from "../../../src/agent/model/create-chat-model.js";
import { resolveModelSettings } from "../../../src/agent/model/resolve-model-settings.js";
import { OpenSweError } from "../../../src/errors.js";
import { SSE_HEADERS, anthropicSse } from "../anthropic-sse.js";

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (err) {
    return err instanceof OpenSweError ? err.code : `not typed: ${String(err)}`;
  }
  return undefined;
}

describe("createChatModel", () => {
  it.each([
    ["anthropic without ANTHROPIC_API_KEY", "claude-sonnet-4-6", {}, /ANTHROPIC_API_KEY/],
    ["openai-compatible without OPENAI_API_KEY", "openai:qwen3-coder", { openaiBaseUrl: "https://llm.example.com/v1" }, /OPENAI_API_KEY/],
  ])("fails at once with model_not_configured: %s", async (_name, modelId, config, message) => {
    const settings = resolveModelSettings({ thread: { modelId } });
    expect(await codeOf(createChatModel(settings, config))).toBe("model_not_configured");
    await expect(createChatModel(settings, config)).rejects.toThrow(message);
  });

  it.each([
    ["adaptive model with effort", "claude-opus-4-7", "low", { thinking: { type: "adaptive" }, outputConfig: { effort: "low" } }],
    ["budget model with effort", "claude-sonnet-4-5", "medium", { thinking: { type: "enabled", budget_tokens: 8192 }, maxTokens: 32_000 }],
    ["budget model, effort none", "claude-haiku-4-5", "none", { thinking: { type: "disabled" } }],
  ])("anthropic %s", async (_name, modelId, effort, expected) => {
    const model = await createChatModel(resolveModelSettings({ thread: { modelId, effort } }), { anthropicApiKey: "sk-test" });
    expect(model).toBeInstanceOf(ChatAnthropic);
    expect(model).toMatchObject({ model: modelId, ...expected });
  });

  it("sends Anthropic calls to the configured API URL with the key", async () => {
    const scope = nock("https://anthropic-proxy.example.com")
      .post("/v1/messages", (body: { model: string }) => body.model === "claude-haiku-4-5")
      .matchHeader("x-api-key", "sk-test")
      .reply(200, anthropicSse([{ type: "text", text: "pong" }], { input_tokens: 3, output_tokens: 1 }, "claude-haiku-4-5"), SSE_HEADERS);
    const model = await createChatModel(resolveModelSettings({ thread: { modelId: "claude-haiku-4-5" } }), {
      anthropicApiKey: "sk-test",
      anthropicApiUrl: "https://anthropic-proxy.example.com",
    });
    const reply = await model.invoke([new HumanMessage("ping")]);
    expect(reply.text).toBe("pong");
    scope.done();
  });

  it("builds an OpenAI-compatible client on the self-hoster's base URL, with reasoning effort only where the model takes it", async () => {
    const selfHosted = await createChatModel(resolveModelSettings({ thread: { modelId: "openai:qwen3-coder" } }), {
      openaiApiKey: "sk-local",
      openaiBaseUrl: "https://llm.example.com/v1",
    });
    expect(selfHosted).toBeInstanceOf(ChatOpenAI);
    expect((selfHosted as ChatOpenAI).clientConfig.baseURL).toBe("https://llm.example.com/v1");
    expect((selfHosted as ChatOpenAI).model).toBe("qwen3-coder");
    expect((selfHosted as ChatOpenAI).reasoning).toBeUndefined();
    const gpt = await createChatModel(resolveModelSettings({ thread: { modelId: "openai:gpt-5", effort: "high" } }), { openaiApiKey: "sk" });
    expect((gpt as ChatOpenAI).reasoning).toEqual({ effort: "high" });
  });
});
