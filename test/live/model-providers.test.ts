import { describe, expect, it } from "vitest";
import { createChatModel } from "../../src/agent/model/create-chat-model.js";
import { resolveModelSettings } from "../../src/agent/model/resolve-model-settings.js";
import { readModelConfig } from "../../src/config/model-config.js";

/**
 * `npm run test:live` only: one short call per cloud provider through the factory runs use. Each provider's
 * model comes from its own variable (test/live/suites.json runs a case only when its settings are set).
 */
const CASES = [
  ["Bedrock", "OPEN_SWE_LIVE_BEDROCK_MODEL"],
  ["Azure OpenAI", "OPEN_SWE_LIVE_AZURE_MODEL"],
  ["Vertex AI", "OPEN_SWE_LIVE_VERTEX_MODEL"],
  ["Gemini", "OPEN_SWE_LIVE_GEMINI_MODEL"],
  ["local server", "OPEN_SWE_LIVE_LOCAL_MODEL"],
] as const;

describe("live: model providers through createChatModel", () => {
  for (const [name, variable] of CASES) {
    it.runIf(Boolean(process.env[variable]))(`${name}: answers one cheap prompt (${variable})`, async () => {
      const config = readModelConfig(process.env);
      const model = await createChatModel(resolveModelSettings({ thread: { modelId: process.env[variable], effort: "none" } }), config, { maxRetries: 1 });
      const answer = await model.invoke("Reply with the single word: pong");
      expect(answer.text.toLowerCase()).toContain("pong");
    });
  }
});
