import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { BaseSandbox, type ExecuteResponse, type FileDownloadResponse, type FileUploadResponse } from "deepagents";
import { describe, expect, it } from "vitest";
import { createOpenSweAgent } from "../../src/agent/create-agent.js";
import { buildAgentMiddleware } from "../../src/agent/middleware/build-agent-middleware.js";

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
const stack = () =>
  buildAgentMiddleware({ modelCallLimit: 20, workspaceRoot: "/", readWorkspaceFile: async () => undefined, drainFollowUps: async () => [], notifyStepLimit: async () => {} });

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
      .respond(call("execute", { command: "bash -c \"gh api repos/o/r/pulls/7/reviews -f event=APPROVE\"" }, "s1"))
      .respond(new AIMessage("could not approve"))
      .respond(call("confirming_completion", { summary: "done" }, "c"));
    const agent = createOpenSweAgent({ model, systemPrompt: "s", tools: [], middleware: stack(), backend });
    await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(backend.commands).toEqual([]);
  });
});
