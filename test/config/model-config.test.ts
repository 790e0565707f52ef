import { describe, expect, it } from "vitest";
import { readModelConfig } from "../../src/config/model-config.js";

describe("readModelConfig", () => {
  it.each<[string, Record<string, string | undefined>, object]>([
    ["empty env", {}, {}],
    ["blank values count as unset", { ANTHROPIC_API_KEY: "  ", OPEN_SWE_MODEL: "" }, {}],
    [
      "every variable",
      {
        ANTHROPIC_API_KEY: "sk-ant",
        ANTHROPIC_BASE_URL: "https://proxy.example.com",
        OPEN_SWE_MODEL: "claude-opus-4-7",
        OPEN_SWE_MODEL_EFFORT: "high",
        OPEN_SWE_FALLBACK_MODEL: "claude-sonnet-4-6",
        OPENAI_BASE_URL: "https://llm.example.com/v1",
        OPENAI_API_KEY: "sk-oai",
        UNRELATED: "x",
      },
      {
        anthropicApiKey: "sk-ant",
        anthropicApiUrl: "https://proxy.example.com",
        model: "claude-opus-4-7",
        effort: "high",
        fallbackModel: "claude-sonnet-4-6",
        openaiBaseUrl: "https://llm.example.com/v1",
        openaiApiKey: "sk-oai",
      },
    ],
  ])("%s", (_name, env, expected) => {
    expect(readModelConfig(env)).toEqual(expected);
  });

  it("rejects a base URL that is not a URL, naming the variable", () => {
    expect(() => readModelConfig({ OPENAI_BASE_URL: "not a url" })).toThrow(/OPENAI_BASE_URL/);
  });
});
