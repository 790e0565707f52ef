import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent } from "langchain";
import nock from "nock";
import { createChatModel } from "../../../src/agent/model/create-chat-model.js";
import { resolveModelSettings } from "../../../src/agent/model/resolve-model-settings.js";
import { describe, expect, it } from "vitest";
import { PRICED_AS, isOverloadOrServerError, modelFallbackMiddleware } from "../../../src/agent/middleware/model-fallback.js";

function httpError(status: number, type: string): Error {
  return Object.assign(new Error(`${status} ${type}`), { status, error: { type } });
}

describe("modelFallbackMiddleware", () => {
  it.each([
    [httpError(529, "overloaded_error"), true],
    [httpError(500, "api_error"), true],
    [httpError(503, "unavailable"), true],
    [Object.assign(new Error("x"), { name: "OverloadedError" }), true],
    [httpError(400, "invalid_request_error"), false],
    [httpError(429, "rate_limit_error"), false],
    [new Error("plain"), false],
    ["a string", false],
  ])("classifies %s as overload/5xx = %s", (err, expected) => {
    expect(isOverloadOrServerError(err)).toBe(expected);
  });

  it("answers from the fallback model when the primary is overloaded", async () => {
    const primary = fakeModel().alwaysThrow(httpError(529, "overloaded_error"));
    const fallback = fakeModel().respond(new AIMessage("from fallback"));
    const seen: unknown[] = [];
    const agent = createAgent({ model: primary, tools: [], middleware: [modelFallbackMiddleware(fallback, (e) => seen.push(e), "anthropic:claude-haiku-4-5")] });
    const result = await agent.invoke({ messages: [new HumanMessage("hi")] });
    expect(result.messages.at(-1)?.text).toBe("from fallback");
    // Tagged, so the run record prices the turn at the fallback's rate.
    expect((result.messages.at(-1) as AIMessage).response_metadata[PRICED_AS]).toBe("anthropic:claude-haiku-4-5");
    expect(seen).toHaveLength(1);
    expect(fallback.callCount).toBe(1);
  });

  it("does not hide a bad request behind the fallback", async () => {
    const primary = fakeModel().alwaysThrow(httpError(400, "invalid_request_error"));
    const fallback = fakeModel().respond(new AIMessage("never"));
    const agent = createAgent({ model: primary, tools: [], middleware: [modelFallbackMiddleware(fallback)] });
    await expect(agent.invoke({ messages: [new HumanMessage("hi")] })).rejects.toThrow(/400/);
    expect(fallback.callCount).toBe(0);
  });
});

describe("modelFallbackMiddleware against the Anthropic SDK's real errors", () => {
  it.each([
    ["HTTP 529", (scope: nock.Interceptor) => scope.reply(529, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } })],
    ["HTTP 500", (scope: nock.Interceptor) => scope.reply(500, { type: "error", error: { type: "api_error", message: "Internal" } })],
    [
      "an overloaded error event mid-stream",
      (scope: nock.Interceptor) => scope.reply(200, 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n', { "content-type": "text/event-stream" }),
    ],
  ])("falls back on %s", async (_name, reply) => {
    reply(nock("https://api.anthropic.com").post("/v1/messages"));
    const primary = await createChatModel(resolveModelSettings({ thread: { modelId: "claude-opus-4-7", effort: "none" } }), { anthropicApiKey: "k" }, { maxRetries: 0 });
    const fallback = fakeModel().respond(new AIMessage("from fallback"));
    const agent = createAgent({ model: primary, tools: [], middleware: [modelFallbackMiddleware(fallback)] });
    expect((await agent.invoke({ messages: [new HumanMessage("hi")] })).messages.at(-1)?.text).toBe("from fallback");
  });

  it("does not fall back on a 400 from Anthropic", async () => {
    nock("https://api.anthropic.com")
      .post("/v1/messages")
      .reply(400, { type: "error", error: { type: "invalid_request_error", message: "prompt is too long" } });
    const primary = await createChatModel(resolveModelSettings({ thread: { modelId: "claude-opus-4-7", effort: "none" } }), { anthropicApiKey: "k" }, { maxRetries: 0 });
    const fallback = fakeModel().respond(new AIMessage("never"));
    const agent = createAgent({ model: primary, tools: [], middleware: [modelFallbackMiddleware(fallback)] });
    await expect(agent.invoke({ messages: [new HumanMessage("hi")] })).rejects.toThrow(/prompt is too long/);
    expect(fallback.callCount).toBe(0);
  });
});
