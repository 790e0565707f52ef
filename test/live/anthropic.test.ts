import { describe, expect, it } from "vitest";
import { createChatModel } from "../../src/agent/model/create-chat-model.js";
import { readModelConfig } from "../../src/config/model-config.js";

/** `npm run test:live` only: one short call through the same model factory runs use (a few tokens). */
describe("live: Anthropic through createChatModel", () => {
  it("answers one cheap prompt (claude-haiku-4-5 unless OPEN_SWE_LIVE_MODEL names another)", async () => {
    const config = readModelConfig(process.env);
    const model = await createChatModel({ modelId: process.env.OPEN_SWE_LIVE_MODEL ?? "anthropic:claude-haiku-4-5", provider: "anthropic", effort: "none", source: "deployment" }, config, {
      maxRetries: 1,
    });
    const answer = await model.invoke("Reply with the single word: pong");
    expect(String(answer.content).toLowerCase()).toContain("pong");
  });
});
