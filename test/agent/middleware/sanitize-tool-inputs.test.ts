import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { sanitizeToolArgs, sanitizeToolInputsMiddleware } from "../../../src/agent/middleware/sanitize-tool-inputs.js";

describe("sanitizeToolArgs", () => {
  it.each<[string, unknown, Record<string, unknown>]>([
    ["plain object untouched", { command: "ls -la" }, { command: "ls -la" }],
    ["JSON string args parsed", '{"command":"ls"}', { command: "ls" }],
    ["non-JSON string kept as input", "ls", { input: "ls" }],
    ["nulls dropped", { file_path: "/a", offset: null }, { file_path: "/a" }],
    ["NUL bytes stripped", { content: "a\u0000b" }, { content: "ab" }],
    ["quoted, padded paths unwrapped", { file_path: '  "/repo/src/a.ts" ' }, { file_path: "/repo/src/a.ts" }],
    ["content is not trimmed", { content: "  keep  " }, { content: "  keep  " }],
    ["nested objects cleaned", { edits: [{ old: "x\u0000", extra: null }] }, { edits: [{ old: "x" }] }],
    ["arrays of args become empty", [1, 2], {}],
  ])("%s", (_name, input, expected) => {
    expect(sanitizeToolArgs(input)).toEqual(expected);
  });
});

describe("sanitizeToolInputsMiddleware", () => {
  it("hands the tool cleaned arguments the schema accepts", async () => {
    const seen: unknown[] = [];
    const read = tool(
      async (args) => {
        seen.push(args);
        return "ok";
      },
      { name: "read_file", description: "read", schema: z.object({ file_path: z.string(), limit: z.number().optional() }) },
    );
    const model = fakeModel()
      .respondWithTools([{ name: "read_file", args: { file_path: " '/repo/a.ts' ", limit: null } }])
      .respond(new AIMessage("done"));
    const agent = createAgent({ model, tools: [read], middleware: [sanitizeToolInputsMiddleware()] });
    await agent.invoke({ messages: [new HumanMessage("read")] });
    expect(seen).toEqual([{ file_path: "/repo/a.ts" }]);
  });
});
