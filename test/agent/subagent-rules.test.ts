import { AIMessage, HumanMessage, ToolMessage, type BaseMessage, type UsageMetadata } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { BaseSandbox, type ExecuteResponse, type FileDownloadResponse, type FileUploadResponse } from "deepagents";
import { describe, expect, it } from "vitest";
import { createOpenSweAgent } from "../../src/agent/create-agent.js";
import { buildAgentMiddleware, buildSubagentMiddleware, type AgentMiddlewareDeps } from "../../src/agent/middleware/build-agent-middleware.js";
import { PRICED_AS } from "../../src/agent/middleware/model-fallback.js";
import { buildRunRecord, costOfTurns, costUsd, usageFromMessages } from "../../src/agent/run-record.js";
import { RunMeter } from "../../src/agent/run-meter.js";

/** Runs commands for real only in the sense that it records them; `fail` throws as a dead sandbox does. */
class RecordingSandbox extends BaseSandbox {
  readonly id = "recording";
  readonly commands: string[] = [];
  async execute(command: string): Promise<ExecuteResponse> {
    this.commands.push(command);
    if (command === "fail") throw new Error("sandbox connection reset");
    return { output: "ran", exitCode: 0, truncated: false };
  }
  async uploadFiles(files: Array<[string, Uint8Array]>): Promise<FileUploadResponse[]> {
    return files.map(([path]) => ({ path, error: null }));
  }
  async downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
    return paths.map((path) => ({ path, content: null, error: "file_not_found" }));
  }
}

function turn(name: string, args: Record<string, unknown>, id: string, usage?: [number, number], meta: Record<string, unknown> = {}): AIMessage {
  const m = new AIMessage({ content: "", tool_calls: [{ name, args, id, type: "tool_call" }], response_metadata: meta });
  if (usage) (m as unknown as { usage_metadata: UsageMetadata }).usage_metadata = { input_tokens: usage[0], output_tokens: usage[1], total_tokens: usage[0] + usage[1] };
  return m;
}

function run(limit: number) {
  const meter = new RunMeter();
  const deps: AgentMiddlewareDeps & { meter: RunMeter } = {
    modelCallLimit: limit,
    workspaceRoot: "/",
    readWorkspaceFile: async () => undefined,
    drainFollowUps: async () => [],
    notifyStepLimit: async () => {},
    meter,
  };
  return { meter, middleware: buildAgentMiddleware(deps), subagentMiddleware: buildSubagentMiddleware(deps) };
}

describe("the task subagent runs under its parent's rules and is counted in the run record", () => {
  it("shares the run's model-call limit: a limit of 5 stops the subagent after 4 calls and then the run", async () => {
    const backend = new RecordingSandbox();
    // deepagents' general-purpose subagent uses the parent's model: one script plays both.
    const model = fakeModel().respond(turn("task", { description: "run the checks", subagent_type: "general-purpose" }, "t"));
    for (let i = 0; i < 20; i++) model.respond(turn("execute", { command: `echo ${i}` }, `e${i}`));
    const { meter, middleware, subagentMiddleware } = run(5);
    const agent = createOpenSweAgent({ model, systemPrompt: "s", tools: [], middleware, subagentMiddleware, backend });
    const result = await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(backend.commands).toEqual(["echo 0", "echo 1", "echo 2", "echo 3"]);
    const record = buildRunRecord({
      threadId: "t",
      trigger: "comment",
      settings: { modelId: "anthropic:claude-sonnet-4-6", effort: "medium", provider: "anthropic" },
      messages: result.messages as BaseMessage[],
      subagent: meter,
      startedAt: new Date(0),
      finishedAt: new Date(1),
    });
    expect(record.outcome).toBe("step_limit");
    expect(record.modelCalls).toBe(5);
  });

  it("its tokens, cost and tool calls are in the run record", async () => {
    const backend = new RecordingSandbox();
    const model = fakeModel()
      .respond(turn("task", { description: "look around", subagent_type: "general-purpose" }, "t", [3000, 50]))
      .respond(turn("execute", { command: "ls" }, "s1", [4000, 20]))
      .respond(turn("execute", { command: "cat README.md" }, "s2", [4000, 20]))
      .respond(turn("execute", { command: "git log -1" }, "s3", [4000, 20]));
    model.respond(
      (() => {
        const m = new AIMessage("Found it.");
        (m as unknown as { usage_metadata: UsageMetadata }).usage_metadata = { input_tokens: 4000, output_tokens: 30, total_tokens: 4030 };
        return m;
      })(),
    );
    model.respond(turn("confirming_completion", { summary: "looked" }, "c", [3000, 10]));
    const { meter, middleware, subagentMiddleware } = run(50);
    const agent = createOpenSweAgent({ model, systemPrompt: "s", tools: [], middleware, subagentMiddleware, backend });
    const result = await agent.invoke({ messages: [new HumanMessage("go")] });
    const settings = { modelId: "anthropic:claude-sonnet-4-6", effort: "medium", provider: "anthropic" };
    const record = buildRunRecord({ threadId: "t", trigger: "comment", settings, messages: result.messages as BaseMessage[], subagent: meter, startedAt: new Date(0), finishedAt: new Date(1) });
    // 2 parent calls (6,000 in) + 4 subagent calls (16,000 in).
    expect(record).toMatchObject({ modelCalls: 6, inputTokens: 22_000, outputTokens: 150 });
    expect(record.toolCounts).toMatchObject({ task: 1, execute: 3, confirming_completion: 1 });
    expect(record.costUsd).toBeCloseTo((22_000 * 3 + 150 * 15) / 1e6, 6);
  });

  it("trips the sandbox circuit breaker inside the subagent", async () => {
    const backend = new RecordingSandbox();
    const model = fakeModel().respond(turn("task", { description: "x", subagent_type: "general-purpose" }, "t"));
    for (let i = 0; i < 3; i++) model.respond(turn("execute", { command: "fail" }, `f${i}`));
    // Without a breaker of its own the subagent would take this turn and report it.
    model.respond(new AIMessage("the subagent carried on"));
    model.respond(turn("confirming_completion", { summary: "stopped" }, "c"));
    const { middleware, subagentMiddleware } = run(50);
    const agent = createOpenSweAgent({ model, systemPrompt: "s", tools: [], middleware, subagentMiddleware, backend });
    const result = await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(backend.commands).toEqual(["fail", "fail", "fail"]);
    const task = (result.messages as BaseMessage[]).find((m) => ToolMessage.isInstance(m) && m.name === "task");
    expect(String(task?.content)).toMatch(/the sandbox failed 3 times in a row/);
  });
});

describe("pricing per turn", () => {
  const usage = (input: number, output: number, meta: Record<string, unknown> = {}) => {
    const m = new AIMessage({ content: "x", response_metadata: meta });
    (m as unknown as { usage_metadata: UsageMetadata }).usage_metadata = { input_tokens: input, output_tokens: output, total_tokens: input + output };
    return m;
  };
  it("a fallback turn is priced at the fallback's rate, the others at the run model's", () => {
    const turns = [usage(10_000, 1_000), usage(10_000, 1_000, { [PRICED_AS]: "anthropic:claude-haiku-4-5" })];
    const sonnet = costUsd("anthropic:claude-sonnet-4-6", usageFromMessages([turns[0]!]))!;
    const haiku = costUsd("anthropic:claude-haiku-4-5", usageFromMessages([turns[1]!]))!;
    expect(costOfTurns(turns, "anthropic:claude-sonnet-4-6")).toBeCloseTo(sonnet + haiku, 6);
    expect(haiku).toBeLessThan(sonnet);
    const record = buildRunRecord({
      threadId: "t",
      trigger: "comment",
      settings: { modelId: "anthropic:claude-sonnet-4-6", effort: "medium", provider: "anthropic" },
      messages: [new HumanMessage("go"), ...turns],
      startedAt: new Date(0),
      finishedAt: new Date(1),
    });
    expect(record.costUsd).toBeCloseTo(sonnet + haiku, 6);
  });
  it("a provider-reported dated snapshot is priced as its family; an unknown name falls back to the run model", () => {
    const dated = usage(1_000_000, 0, { model: "claude-opus-4-5-20251101" });
    expect(costOfTurns([dated], "anthropic:claude-sonnet-4-6")).toBe(5);
    expect(costOfTurns([usage(1_000_000, 0, { model_name: "replay" })], "anthropic:claude-sonnet-4-6")).toBe(3);
  });
});
