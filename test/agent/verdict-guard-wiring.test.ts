import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { BaseSandbox, createDeepAgent, type ExecuteResponse, type FileDownloadResponse, type FileUploadResponse } from "deepagents";
import { describe, expect, it } from "vitest";
import { createOpenSweAgent } from "../../src/agent/create-agent.js";
import { buildAgentMiddleware } from "../../src/agent/middleware/build-agent-middleware.js";
import { reviewerMiddleware } from "../../src/runs/review-agent.js";

/** Records what reaches the sandbox: the guard must stop verdicts before they get here. */
class RecordingSandbox extends BaseSandbox {
  readonly id = "recording";
  readonly commands: string[] = [];
  async execute(command: string): Promise<ExecuteResponse> {
    this.commands.push(command);
    return { output: "ran", exitCode: 0, truncated: false };
  }
  async uploadFiles(files: Array<[string, Uint8Array]>): Promise<FileUploadResponse[]> {
    return files.map(([path]) => ({ path, error: null }));
  }
  async downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
    return paths.map((path) => ({ path, content: null, error: "file_not_found" }));
  }
}

const call = (name: string, args: Record<string, unknown>, id: string) => new AIMessage({ content: "", tool_calls: [{ name, args, id, type: "tool_call" }] });
const stack = () => buildAgentMiddleware({ modelCallLimit: 20, workspaceRoot: "/", readWorkspaceFile: async () => undefined, drainFollowUps: async () => [], notifyStepLimit: async () => {} });

describe("the verdict guard is wired into the coding agent and its subagent", () => {
  it("blocks `gh pr review --approve` in the main agent, lets other commands through", async () => {
    const backend = new RecordingSandbox();
    const model = fakeModel()
      .respond(call("execute", { command: "GH_TOKEN=x gh pr review 7 --approve" }, "a"))
      .respond(call("execute", { command: "git commit -m 'approve the change'" }, "b"))
      .respond(call("confirming_completion", { summary: "done" }, "c"));
    const agent = createOpenSweAgent({ model, systemPrompt: "s", tools: [], middleware: stack(), backend });
    const result = await agent.invoke({ messages: [new HumanMessage("go")] });
    const tools = (result.messages as BaseMessage[]).filter((m): m is ToolMessage => ToolMessage.isInstance(m) && m.name === "execute");
    expect(tools[0]?.status).toBe("error");
    expect(String(tools[0]?.content)).toMatch(/publish_review/);
    expect(backend.commands).toEqual(["git commit -m 'approve the change'"]);
  });

  it("blocks it inside a `task` subagent too", async () => {
    const backend = new RecordingSandbox();
    const model = fakeModel()
      .respond(call("task", { description: "approve PR 7", subagent_type: "general-purpose" }, "t"))
      .respond(call("execute", { command: 'bash -c "gh api repos/o/r/pulls/7/reviews -f event=APPROVE"' }, "s1"))
      .respond(new AIMessage("could not approve"))
      .respond(call("confirming_completion", { summary: "done" }, "c"));
    const agent = createOpenSweAgent({ model, systemPrompt: "s", tools: [], middleware: stack(), backend });
    await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(backend.commands).toEqual([]);
  });
});

describe("the verdict guard judges exactly the command the sandbox receives", () => {
  // A NUL inside a word, and arguments sent as a JSON string, are normalised by input sanitising;
  // the guard must see the normalised command, not the raw one, or these reach the sandbox.
  const disguised: Array<[string, unknown]> = [
    ["a NUL inside a word", { command: "gh pr re\u0000view 7 --approve" }],
    ["arguments as a JSON string", JSON.stringify({ command: "gh pr review 7 --approve" })],
    ["a JSON string with a NUL", JSON.stringify({ command: "g\u0000h pr review 7 -a" })],
  ];

  it.each(disguised)("blocks %s in the coding agent's stack", async (_what, args) => {
    const backend = new RecordingSandbox();
    const model = fakeModel()
      .respond(new AIMessage({ content: "", tool_calls: [{ name: "execute", args: args as Record<string, unknown>, id: "x", type: "tool_call" }] }))
      .respond(call("execute", { command: "git status" }, "y"))
      .respond(call("confirming_completion", { summary: "done" }, "c"));
    const agent = createOpenSweAgent({ model, systemPrompt: "s", tools: [], middleware: stack(), backend });
    const result = await agent.invoke({ messages: [new HumanMessage("go")] });
    const blocked = (result.messages as BaseMessage[]).find((m): m is ToolMessage => ToolMessage.isInstance(m) && m.tool_call_id === "x");
    expect(String(blocked?.content)).toMatch(/verdict_guard_blocked/);
    expect(backend.commands).toEqual(["git status"]);
  });

  it.each(disguised)("blocks %s in the reviewer's stack", async (_what, args) => {
    const backend = new RecordingSandbox();
    const model = fakeModel()
      .respond(new AIMessage({ content: "", tool_calls: [{ name: "execute", args: args as Record<string, unknown>, id: "x", type: "tool_call" }] }))
      .respond(new AIMessage("done"));
    const agent = createDeepAgent({ model, backend, middleware: reviewerMiddleware({ modelCallLimit: 10 }) });
    await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(backend.commands).toEqual([]);
  });
});
