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

  it.each([
    [
      "Bedrock without a region",
      { OPEN_SWE_MODEL: "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0", AWS_ACCESS_KEY_ID: "AKID", AWS_SECRET_ACCESS_KEY: "s" },
      /^invalid OPEN_SWE_MODEL: model bedrock:us\.anthropic\.claude-sonnet-4-5-20250929-v1:0 needs AWS_REGION /,
    ],
    [
      "Bedrock without credentials",
      { OPEN_SWE_FALLBACK_MODEL: "bedrock:anthropic.claude-haiku-4-5-20251001-v1:0", AWS_REGION: "us-east-1" },
      /^invalid OPEN_SWE_FALLBACK_MODEL: .* needs AWS credentials, and none were found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE/,
    ],
    ["Azure without an endpoint", { THREAD_MODELS: "claude-sonnet-4-6,azure:gpt-5", AZURE_OPENAI_API_KEY: "k" }, /^invalid THREAD_MODELS: model azure:gpt-5 needs AZURE_OPENAI_ENDPOINT /],
    ["Vertex without a region", { OPEN_SWE_MODEL: "vertex:claude-sonnet-4-5@20250929", GOOGLE_CLOUD_PROJECT: "p" }, /needs GOOGLE_CLOUD_LOCATION /],
    ["Gemini without a key", { OPEN_SWE_MODEL: "gemini:gemini-2.5-pro" }, /needs GEMINI_API_KEY /],
  ])("stops start-up with one line naming what to set: %s", (_name, env, message) => {
    expect(() => readModelConfig(env)).toThrow(message);
  });

  it("accepts chosen cloud models when their settings are there", () => {
    const config = readModelConfig({
      OPEN_SWE_MODEL: "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0",
      OPEN_SWE_FALLBACK_MODEL: "claude-sonnet-4-6",
      THREAD_MODELS: "azure:gpt-5,vertex:claude-sonnet-4-5@20250929,gemini:gemini-2.5-flash",
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "AKID",
      AWS_SECRET_ACCESS_KEY: "secret",
      AZURE_OPENAI_ENDPOINT: "https://contoso.openai.azure.com",
      AZURE_OPENAI_API_KEY: "az",
      GOOGLE_CLOUD_PROJECT: "p",
      GOOGLE_CLOUD_LOCATION: "us-east5",
      GEMINI_API_KEY: "g",
    });
    expect(config).toMatchObject({ awsRegion: "us-east-1", awsCredentialSource: "environment keys", azureEndpoint: "https://contoso.openai.azure.com", vertexRegion: "us-east5", geminiApiKey: "g" });
  });

  it("rejects a base URL that is not a URL, naming the variable", () => {
    expect(() => readModelConfig({ OPENAI_BASE_URL: "not a url" })).toThrow(/OPENAI_BASE_URL/);
  });
});
