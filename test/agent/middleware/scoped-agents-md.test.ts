import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { governingAgentsMd, scopedAgentsMdMiddleware } from "../../../src/agent/middleware/scoped-agents-md.js";

const FILES: Record<string, string> = {
  "/ws/AGENTS.md": "root rules",
  "/ws/packages/api/AGENTS.md": "api: use zod at the edges",
  "/ws/packages/api/src/routes/users.ts": "export const users = 1;",
  "/ws/packages/api/src/routes/teams.ts": "export const teams = 2;",
  "/ws/packages/web/index.ts": "web",
};

describe("governingAgentsMd", () => {
  it.each<[string, boolean, string[]]>([
    ["/ws/packages/api/src/routes/users.ts", false, ["/ws/packages/AGENTS.md", "/ws/packages/api/AGENTS.md", "/ws/packages/api/src/AGENTS.md", "/ws/packages/api/src/routes/AGENTS.md"]],
    ["packages/web/index.ts", true, ["/ws/AGENTS.md", "/ws/packages/AGENTS.md", "/ws/packages/web/AGENTS.md"]],
    ["/ws/packages/api/AGENTS.md", false, ["/ws/packages/AGENTS.md"]],
    ["/ws/README.md", false, []],
    ["/etc/passwd", true, []],
    ["/ws/../etc/passwd", true, []],
  ])("%s (includeRoot=%s)", (file, includeRoot, expected) => {
    expect(governingAgentsMd("/ws", file, includeRoot)).toEqual(expected);
  });
});

describe("scopedAgentsMdMiddleware", () => {
  it("appends the scoped AGENTS.md to read_file results once per conversation", async () => {
    const reads: string[] = [];
    const readFile = tool(async ({ file_path }) => FILES[file_path] ?? "Error: not found", {
      name: "read_file",
      description: "read",
      schema: z.object({ file_path: z.string() }),
    });
    const model = fakeModel()
      .respondWithTools([{ name: "read_file", args: { file_path: "/ws/packages/api/src/routes/users.ts" } }])
      .respondWithTools([{ name: "read_file", args: { file_path: "/ws/packages/api/src/routes/teams.ts" } }])
      .respond(new AIMessage("done"));
    const middleware = scopedAgentsMdMiddleware({
      workspaceRoot: "/ws",
      readFile: async (p) => {
        reads.push(p);
        return FILES[p];
      },
    });
    const agent = createAgent({ model, tools: [readFile], middleware: [middleware] });
    const result = await agent.invoke({ messages: [new HumanMessage("look")] });
    const [first, second] = result.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => m.text);
    expect(first).toBe('export const users = 1;\n\n<agents_md path="/ws/packages/api/AGENTS.md">\nInstructions that apply to files under /ws/packages/api:\napi: use zod at the edges\n</agents_md>');
    expect(second).toBe("export const teams = 2;");
    expect(reads).not.toContain("/ws/AGENTS.md");
  });

  it("leaves failed reads and other tools alone", async () => {
    const failing = tool(async () => "nope", { name: "ls", description: "ls", schema: z.object({ path: z.string() }) });
    const model = fakeModel()
      .respondWithTools([{ name: "ls", args: { path: "/ws/packages/api/src" } }])
      .respond(new AIMessage("done"));
    const agent = createAgent({ model, tools: [failing], middleware: [scopedAgentsMdMiddleware({ workspaceRoot: "/ws", readFile: async (p) => FILES[p] })] });
    const result = await agent.invoke({ messages: [new HumanMessage("ls")] });
    expect(result.messages.find((m) => ToolMessage.isInstance(m))?.text).toBe("nope");
  });
});
