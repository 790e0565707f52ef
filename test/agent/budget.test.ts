import { AIMessage, HumanMessage, ToolMessage, type BaseMessage, type UsageMetadata } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { BaseSandbox, type ExecuteResponse, type FileDownloadResponse, type FileUploadResponse } from "deepagents";
import { describe, expect, it } from "vitest";
import { UNPRICED_TOKEN_CAP, estimateInputTokens, isBudgetStop, nextCallUsd, runBudget, spentUsd } from "../../src/agent/budget.js";
import { createOpenSweAgent } from "../../src/agent/create-agent.js";
import { buildAgentMiddleware, buildSubagentMiddleware, type AgentMiddlewareDeps } from "../../src/agent/middleware/build-agent-middleware.js";
import { buildRunRecord } from "../../src/agent/run-record.js";
import { RunMeter } from "../../src/agent/run-meter.js";

class Sandbox extends BaseSandbox {
  readonly id = "s";
  readonly commands: string[] = [];
  async execute(command: string): Promise<ExecuteResponse> {
    this.commands.push(command);
    return { output: "ok", exitCode: 0, truncated: false };
  }
  async uploadFiles(files: Array<[string, Uint8Array]>): Promise<FileUploadResponse[]> {
    return files.map(([path]) => ({ path, error: null }));
  }
  async downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
    return paths.map((path) => ({ path, content: null, error: "file_not_found" }));
  }
}

const SONNET = "anthropic:claude-sonnet-4-6";
function turn(name: string, args: Record<string, unknown>, id: string, input: number, model = SONNET): AIMessage {
  const m = new AIMessage({ content: "", tool_calls: [{ name, args, id, type: "tool_call" }], response_metadata: { model_name: model } });
  (m as unknown as { usage_metadata: UsageMetadata }).usage_metadata = { input_tokens: input, output_tokens: 0, total_tokens: input };
  return m;
}

function run(model: ReturnType<typeof fakeModel>, budgetUsd: number | undefined, modelId = SONNET, budgetTokens?: number) {
  const meter = new RunMeter();
  const deps: AgentMiddlewareDeps & { meter: RunMeter } = {
    modelCallLimit: 50,
    workspaceRoot: "/",
    readWorkspaceFile: async () => undefined,
    drainFollowUps: async () => [],
    notifyStepLimit: async () => {},
    meter,
    ...(budgetUsd !== undefined ? { budgetUsd } : {}),
    ...(budgetTokens !== undefined ? { budgetTokens } : {}),
    budgetModelId: modelId,
  };
  const backend = new Sandbox();
  const agent = createOpenSweAgent({ model, systemPrompt: "s", tools: [], middleware: buildAgentMiddleware(deps), subagentMiddleware: buildSubagentMiddleware(deps), backend });
  return {
    backend,
    go: async () => {
      const messages = (await agent.invoke({ messages: [new HumanMessage("go")] })).messages as BaseMessage[];
      return {
        messages,
        record: buildRunRecord({
          threadId: "t",
          trigger: "comment",
          settings: { modelId, effort: "none", provider: "anthropic" },
          messages,
          subagent: meter,
          startedAt: new Date(0),
          finishedAt: new Date(1),
        }),
      };
    },
  };
}

describe("the run budget", () => {
  it.each([
    // [input tokens of each scripted turn, budget, tool calls made, stopped by the budget]
    [[10_000, 10_000, 10_000, 10_000], 0.09, 3, true], // $0.03 a call: spent $0.09 + the 4th call's input passes $0.09
    [[10_000, 10_000], 0.0301, 1, true], // spent $0.03 + the next call's input passes $0.0301
    [[10_000, 10_000], 1, 2, false], // never reached: the script ends the run
  ])("turns of %j under $%s: %i tool calls, stopped: %s", async (inputs, budget, made, stopped) => {
    const model = fakeModel();
    inputs.forEach((n, i) => {
      model.respond(turn("execute", { command: `echo ${i}` }, `e${i}`, n));
    });
    model.respond(turn("confirming_completion", { summary: "done" }, "c", 0));
    const { backend, go } = run(model, budget);
    const { messages, record } = await go();
    expect(isBudgetStop(messages.at(-1))).toBe(stopped);
    expect(backend.commands).toHaveLength(made);
    if (stopped) {
      expect(record.outcome).toBe("budget_exceeded");
      expect(messages.at(-1)?.text).toMatch(/^Budget reached: the next model call would take this run past its budget of \$[\d.]+ \(spent \$[\d.]+ so far\), so I stopped before it\.$/);
    } else expect(record.outcome).not.toBe("budget_exceeded");
  });

  it("stops a $0 model's runaway run at the token cap, which the USD budget never reaches", async () => {
    const model = fakeModel();
    // Ten calls of 10k tokens each, at $0: the USD budget would let all of them through.
    for (let i = 0; i < 10; i += 1) model.respond(turn("execute", { command: `echo ${i}` }, `e${i}`, 10_000, "openai:local-llm"));
    const budget = runBudget("openai:local-llm", { usd: [1], tokens: [undefined, 25_000] });
    expect(budget).toEqual({ budgetUsd: 1, budgetTokens: 25_000, budgetModelId: "openai:local-llm" });
    const { backend, go } = run(model, budget.budgetUsd, "openai:local-llm", budget.budgetTokens);
    const { messages, record } = await go();
    expect(backend.commands).toHaveLength(3); // 20k used + the next input fits; 30k used is past 25k
    expect(isBudgetStop(messages.at(-1))).toBe(true);
    expect(record.outcome).toBe("budget_exceeded");
    expect(record.costUsd).toBeUndefined();
    expect(messages.at(-1)?.text).toMatch(/^Budget reached: the next model call would take this run past its budget of 25,000 tokens \(used 30,000 so far\), so I stopped before it\.$/);
  });

  it.each([
    ["a priced model with a USD cap only: no token cap", SONNET, [2], [], { budgetUsd: 2, budgetModelId: SONNET }],
    ["an unpriced model with a USD cap only: the default token cap", "openai:local-llm", [2], [], { budgetUsd: 2, budgetTokens: UNPRICED_TOKEN_CAP, budgetModelId: "openai:local-llm" }],
    ["an unpriced model, no cap at all: still the default token cap", "openai:local-llm", [], [], { budgetTokens: UNPRICED_TOKEN_CAP, budgetModelId: "openai:local-llm" }],
    ["the lower of the deployment's and the repository's", SONNET, [3, 2], [50_000, 80_000], { budgetUsd: 2, budgetTokens: 50_000, budgetModelId: SONNET }],
    ["a replay: no budget", "replay:x.json", [], [], {}],
  ])("runBudget: %s", (_t, modelId, usdCaps, tokenCaps, expected) => {
    expect(runBudget(modelId, { usd: usdCaps, tokens: tokenCaps })).toEqual(expected);
  });

  it("counts the subagent's spend and stops the subagent at it too", async () => {
    const model = fakeModel()
      .respond(turn("task", { description: "d", subagent_type: "general-purpose" }, "t", 10_000))
      .respond(turn("execute", { command: "echo sub" }, "s1", 10_000))
      .respond(turn("execute", { command: "echo never" }, "s2", 10_000));
    const { backend, go } = run(model, 0.06);
    const { messages, record } = await go();
    expect(backend.commands).toEqual(["echo sub"]);
    const task = messages.find((m): m is ToolMessage => ToolMessage.isInstance(m) && m.name === "task");
    expect(task?.text).toMatch(/^Stopped: subagent "general-purpose"'s next model call would take the run past its budget of \$0\.0600 \(spent \$0\.0600\)/);
    expect(record.outcome).toBe("budget_exceeded");
    expect(record.costUsd).toBe(0.06);
  });

  it.each([
    ["priced at the run's model", SONNET, [], 1_000_000, 3],
    ["a model without a price, priced as the last priced turn", "openai:local-llm", [turn("x", {}, "a", 1, "anthropic:claude-haiku-4-5")], 1_000_000, 1],
    ["nothing priced: free", "openai:local-llm", [], 1_000_000, 0],
  ])("nextCallUsd: %s", (_t, modelId, turns, tokens, usd) => {
    expect(nextCallUsd(tokens, modelId, turns)).toBe(usd);
  });

  it("estimates ≈ 4 characters a token and sums spend per model", () => {
    expect(estimateInputTokens([new HumanMessage("x".repeat(400))], "y".repeat(400))).toBe(200);
    expect(spentUsd([turn("x", {}, "a", 1_000_000), turn("x", {}, "b", 1_000_000, "anthropic:claude-haiku-4-5")], SONNET)).toBe(4);
  });
});
