import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { isOverloadOrServerError, modelFallbackMiddleware } from "../../../src/agent/middleware/model-fallback.js";

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
    const agent = createAgent({ model: primary, tools: [], middleware: [modelFallbackMiddleware(fallback, (e) => seen.push(e))] });
    const result = await agent.invoke({ messages: [new HumanMessage("hi")] });
    expect(result.messages.at(-1)?.text).toBe("from fallback");
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
