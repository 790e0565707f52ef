import { generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import nock from "nock";
import { expect } from "vitest";
import { anthropicStream } from "./wire/anthropic-wire.js";
import { converseResponse } from "./wire/bedrock-wire.js";
import { generateContentResponse } from "./wire/gemini-wire.js";
import { chatCompletion, chatCompletionStream } from "./wire/openai-wire.js";
import type { WireTurn } from "./wire/turn.js";
import type { ProviderFixture } from "./conformance.js";

const SONNET = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const GPT5 = { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 };
const SSE = { "content-type": "text/event-stream" };

/** Answers one turn per request, in order, keeping each request's body. */
function inOrder(turns: readonly WireTurn[], requests: unknown[], answer: (turn: WireTurn, body: Record<string, unknown>) => [number, string | object, Record<string, string>?]) {
  let next = 0;
  return (_uri: string, body: unknown) => {
    requests.push(body);
    const turn = turns[next++];
    if (!turn) throw new Error("the model was called more often than scripted");
    return answer(turn, body as Record<string, unknown>);
  };
}

export const anthropicFixture: ProviderFixture = {
  provider: "anthropic",
  modelId: "anthropic:claude-sonnet-4-5",
  config: () => ({ anthropicApiKey: "sk-ant-test" }),
  price: SONNET,
  reportsCacheWrite: true,
  mock(turns, requests) {
    nock("https://api.anthropic.com")
      .matchHeader("x-api-key", "sk-ant-test")
      .post("/v1/messages")
      .times(turns.length)
      .reply(inOrder(turns, requests, (turn) => [200, anthropicStream(turn, "claude-sonnet-4-5-20250929"), SSE]));
  },
  checkRequest(body) {
    expect(body).toMatchObject({ model: "claude-sonnet-4-5", stream: true, thinking: { type: "enabled", budget_tokens: 8_192 } });
  },
};

export const openaiFixture: ProviderFixture = {
  provider: "openai",
  modelId: "openai:gpt-5",
  config: () => ({ openaiApiKey: "sk-oai-test" }),
  price: GPT5,
  reportsCacheWrite: false,
  mock(turns, requests) {
    nock("https://api.openai.com")
      .matchHeader("authorization", "Bearer sk-oai-test")
      .post("/v1/chat/completions")
      .times(turns.length)
      .reply(inOrder(turns, requests, (turn, body) => (body.stream === true ? [200, chatCompletionStream(turn, "gpt-5"), SSE] : [200, chatCompletion(turn, "gpt-5")])));
  },
  checkRequest(body) {
    expect(body).toMatchObject({ model: "gpt-5", reasoning_effort: "medium" });
  },
};

export const bedrockFixture: ProviderFixture = {
  provider: "bedrock",
  modelId: "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0",
  config: () => ({ awsRegion: "us-east-1", awsCredentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" }, awsCredentialSource: "environment keys" }),
  price: SONNET,
  reportsCacheWrite: true,
  mock(turns, requests) {
    nock("https://bedrock-runtime.us-east-1.amazonaws.com")
      // SigV4 with the configured key, for Bedrock in the configured region.
      .matchHeader("authorization", /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/bedrock\/aws4_request, /)
      .post("/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse")
      .times(turns.length)
      .reply(inOrder(turns, requests, (turn) => [200, converseResponse(turn), { "content-type": "application/json" }]));
  },
  checkRequest(body) {
    const b = body as { system: unknown[]; toolConfig: { tools: unknown[] }; messages: Array<{ content: unknown[] }>; additionalModelRequestFields: unknown; inferenceConfig: unknown };
    // Cache points after the system prompt, the tools and the last message: Claude caches the prefix.
    expect(b.system.at(-1)).toEqual({ cachePoint: { type: "default" } });
    expect(b.toolConfig.tools.at(-1)).toEqual({ cachePoint: { type: "default" } });
    expect(b.messages.at(-1)?.content.at(-1)).toEqual({ cachePoint: { type: "default" } });
    // Extended thinking at the model's default effort, in the Messages API's own shape.
    expect(b.additionalModelRequestFields).toEqual({ thinking: { type: "enabled", budget_tokens: 8_192 } });
    expect(b.inferenceConfig).toEqual({ maxTokens: 32_000 });
  },
};

export const azureFixture: ProviderFixture = {
  provider: "azure",
  modelId: "azure:gpt-5",
  config: () => ({ azureEndpoint: "https://contoso-ai.openai.azure.com", azureApiKey: "azure-key-test" }),
  price: GPT5,
  reportsCacheWrite: false,
  mock(turns, requests) {
    nock("https://contoso-ai.openai.azure.com")
      .matchHeader("api-key", "azure-key-test")
      .post("/openai/deployments/gpt-5/chat/completions")
      .query({ "api-version": "2024-10-21" })
      .times(turns.length)
      .reply(inOrder(turns, requests, (turn, body) => (body.stream === true ? [200, chatCompletionStream(turn, "gpt-5"), SSE] : [200, chatCompletion(turn, "gpt-5")])));
  },
  checkRequest(body) {
    expect(body).toMatchObject({ reasoning_effort: "medium" });
  },
};

/** A service account whose key signs the token request Google's token endpoint (mocked) answers. */
function serviceAccountFile(): string {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const file = resolve("vertex-sa.json");
  writeFileSync(
    file,
    JSON.stringify({
      type: "service_account",
      project_id: "acme-ml",
      private_key_id: "k1",
      private_key: privateKey.export({ type: "pkcs8", format: "pem" }),
      client_email: "open-swe@acme-ml.iam.gserviceaccount.com",
      client_id: "1",
      token_uri: "https://oauth2.googleapis.com/token",
    }),
  );
  return file;
}

export const vertexFixture: ProviderFixture = {
  provider: "vertex",
  modelId: "vertex:claude-sonnet-4-5@20250929",
  config: () => ({ googleCloudProject: "acme-ml", vertexRegion: "us-east5", googleCredentialsFile: serviceAccountFile() }),
  price: SONNET,
  reportsCacheWrite: true,
  mock(turns, requests) {
    nock("https://oauth2.googleapis.com")
      .post("/token", (body: Record<string, string>) => body.grant_type === "urn:ietf:params:oauth:grant-type:jwt-bearer" && typeof body.assertion === "string")
      .reply(200, { access_token: "ya29.vertex-test", expires_in: 3600, token_type: "Bearer" });
    nock("https://us-east5-aiplatform.googleapis.com")
      .matchHeader("authorization", "Bearer ya29.vertex-test")
      .post("/v1/projects/acme-ml/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict")
      .times(turns.length)
      .reply(inOrder(turns, requests, (turn) => [200, anthropicStream(turn, "claude-sonnet-4-5-20250929"), SSE]));
  },
  checkRequest(body) {
    // Vertex takes the model in the URL and its API version in the body.
    expect(body).toMatchObject({ anthropic_version: expect.any(String), stream: true, thinking: { type: "enabled", budget_tokens: 8_192 } });
    expect(body).not.toHaveProperty("model");
  },
};

export const geminiFixture: ProviderFixture = {
  provider: "gemini",
  modelId: "gemini:gemini-2.5-flash",
  config: () => ({ geminiApiKey: "gemini-key-test" }),
  price: { input: 0.3, output: 2.5, cacheRead: 0.075, cacheWrite: 0.3 },
  reportsCacheWrite: false,
  mock(turns, requests) {
    nock("https://generativelanguage.googleapis.com")
      .matchHeader("x-goog-api-key", "gemini-key-test")
      .post("/v1beta/models/gemini-2.5-flash:generateContent")
      .times(turns.length)
      .reply(inOrder(turns, requests, (turn) => [200, generateContentResponse(turn), { "content-type": "application/json" }]));
  },
  checkRequest(body) {
    expect(body).toMatchObject({ generationConfig: { maxOutputTokens: 32_000, thinkingConfig: { thinkingBudget: 1_024 } } });
  },
};
