import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { RunRecord } from "../../src/shared/run-record.js";
import { buildRunRecord, costUsd, formatRunSummary, inferOutcome, prUrlFrom, usageFromMessages, type RunUsage } from "../../src/agent/run-record.js";

function ai(input: number, output: number, cacheRead = 0, cacheWrite = 0, toolCalls: string[] = []): AIMessage {
  const m = new AIMessage({ content: "", tool_calls: toolCalls.map((name, i) => ({ name, args: {}, id: `${name}-${i}`, type: "tool_call" as const })) });
  (m as unknown as { usage_metadata: unknown }).usage_metadata = {
    input_tokens: input,
    output_tokens: output,
    total_tokens: input + output,
    input_token_details: { cache_read: cacheRead, cache_creation: cacheWrite },
  };
  return m;
}
const toolMsg = (name: string, text: string, status: "success" | "error" = "success") => new ToolMessage({ content: text, tool_call_id: `${name}-x`, name, status });

describe("costUsd", () => {
  const u = (inputTokens: number, outputTokens: number, cachedTokens = 0, cacheWriteTokens = 0): RunUsage => ({ modelCalls: 1, inputTokens, outputTokens, cachedTokens, cacheWriteTokens });
  it.each<[string, string, RunUsage, number | undefined]>([
    ["sonnet, plain", "anthropic:claude-sonnet-4-6", u(1_000_000, 0), 3],
    ["sonnet, output", "anthropic:claude-sonnet-4-6", u(0, 1_000_000), 15],
    ["sonnet, all cached reads", "anthropic:claude-sonnet-4-6", u(1_000_000, 0, 1_000_000), 0.3],
    ["sonnet, mixed", "anthropic:claude-sonnet-4-6", u(100_000, 2_000, 60_000, 20_000), 0.183],
    ["opus", "anthropic:claude-opus-4-7", u(10_000, 1_000), 0.075],
    ["haiku dated snapshot", "anthropic:claude-haiku-4-5-20251001", u(1_000_000, 1_000_000), 6],
    ["self-hosted has no price", "openai:qwen3-coder", u(1_000, 1_000), undefined],
    ["replay has no price", "replay:/tmp/x.json", u(1_000, 1_000), undefined],
  ])("%s", (_name, model, usage, expected) => {
    const cost = costUsd(model, usage);
    if (expected === undefined) expect(cost).toBeUndefined();
    else expect(cost).toBeCloseTo(expected, 6);
  });
});

describe("usageFromMessages", () => {
  it("sums model turns, cached and cache-write tokens; ignores the limit marker", () => {
    const limit = new AIMessage({ content: "Model call limit reached", response_metadata: { model_call_limit: true } });
    expect(usageFromMessages([new HumanMessage("x"), ai(1000, 50, 800, 100), ai(1500, 70, 1300), limit, new AIMessage("no usage")])).toEqual({
      modelCalls: 3,
      inputTokens: 2500,
      outputTokens: 120,
      cachedTokens: 2100,
      cacheWriteTokens: 100,
    });
  });
});

describe("prUrlFrom / inferOutcome", () => {
  const pr = "https://github.com/acme/widgets/pull/42";
  it.each<[string, BaseMessage[], string | undefined, string]>([
    ["PR tool result", [ai(1, 1), toolMsg("open_or_update_pull_request", `Draft PR opened: ${pr}`)], pr, "pr_opened"],
    [
      "a GitHub Enterprise Server PR",
      [toolMsg("open_or_update_pull_request", "Draft PR opened: https://ghe.acme.example/acme/widgets/pull/7")],
      "https://ghe.acme.example/acme/widgets/pull/7",
      "pr_opened",
    ],
    ["a URL the model only wrote is not a PR", [new AIMessage(`Opened ${pr}`), toolMsg("confirming_completion", "ok")], undefined, "completed"],
    ["failed PR tool", [toolMsg("open_or_update_pull_request", `422 for ${pr}`, "error")], undefined, "incomplete"],
    ["a question answered with a reply, no PR, no confirmation", [ai(1, 1), toolMsg("github_comment", "posted"), new AIMessage("Answered.")], undefined, "completed"],
    ["a reply that failed is not an answer", [toolMsg("github_comment", "403", "error"), new AIMessage("x")], undefined, "incomplete"],
    ["step limit", [ai(1, 1), new AIMessage({ content: "Model call limit reached: …", response_metadata: { model_call_limit: true } })], undefined, "step_limit"],
    ["sandbox breaker", [new AIMessage("Stopping: the sandbox failed 3 times in a row (last error: x).")], undefined, "sandbox_failed"],
  ])("%s", (_name, messages, url, outcome) => {
    expect(prUrlFrom(messages)).toBe(url);
    expect(inferOutcome(messages, url)).toBe(outcome);
  });
});

describe("buildRunRecord + formatRunSummary", () => {
  const messages: BaseMessage[] = [
    new HumanMessage("older request"),
    ai(99_999, 99_999, 0, 0, ["execute"]),
    toolMsg("execute", "old"),
    new HumanMessage("add a CONTRIBUTING.md"),
    ai(20_000, 1_000, 0, 15_000, ["write_file"]),
    toolMsg("write_file", "ok"),
    ai(25_000, 900, 18_000, 0, ["commit_and_push"]),
    toolMsg("commit_and_push", "pushed"),
    ai(26_000, 1_200, 24_000, 0, ["open_or_update_pull_request", "github_comment"]),
    toolMsg("open_or_update_pull_request", "Draft PR: https://github.com/acme/widgets/pull/7"),
    toolMsg("github_comment", "posted"),
  ];
  const base = {
    threadId: "t-1",
    trigger: "github:issue_comment",
    settings: { modelId: "anthropic:claude-sonnet-4-6", effort: "medium", provider: "anthropic" },
    messages,
    startedAt: new Date("2026-11-30T07:00:00Z"),
    finishedAt: new Date("2026-11-30T07:04:12Z"),
  };

  it("counts only the current run and passes its own schema", () => {
    const record = buildRunRecord(base);
    expect(RunRecord.parse(record)).toEqual(record);
    expect(record).toMatchObject({
      modelCalls: 3,
      inputTokens: 71_000,
      outputTokens: 3_100,
      cachedTokens: 42_000,
      cacheWriteTokens: 15_000,
      durationMs: 252_000,
      toolCounts: { write_file: 1, commit_and_push: 1, open_or_update_pull_request: 1, github_comment: 1 },
      outcome: "pr_opened",
      prUrl: "https://github.com/acme/widgets/pull/7",
      replayed: false,
    });
    // (14k uncached × $3 + 42k cached × $0.30 + 15k written × $3.75 + 3.1k out × $15) / 1M
    expect(record.costUsd).toBeCloseTo(0.15735, 6);
    expect(formatRunSummary(record)).toBe("claude-sonnet-4-6 · 3 calls · 71.0k in (42.0k cached) / 3.1k out · $0.1573 · 4m 12s");
  });

  it("marks a thrown run failed and a replayed run as replayed", () => {
    const failed = buildRunRecord({ ...base, error: new Error("sandbox gone") });
    expect(failed).toMatchObject({ outcome: "failed", error: "sandbox gone" });
    const replay = buildRunRecord({ ...base, settings: { modelId: "replay:/tmp/run.json", effort: "none", provider: "replay" }, finishedAt: new Date("2026-11-30T07:00:09Z") });
    expect(replay.replayed).toBe(true);
    expect(replay.costUsd).toBeUndefined();
    expect(formatRunSummary(replay)).toBe("replayed run (no model was called) · 3 calls · 71.0k in (42.0k cached) / 3.1k out · cost n/a · 9s");
  });

  it.each([
    [500, "1s"],
    [59_000, "59s"],
    [3_600_000 + 120_000, "1h 2m"],
  ])("formats %i ms as %s", (ms, text) => {
    const record = buildRunRecord({ ...base, finishedAt: new Date(base.startedAt.getTime() + ms) });
    expect(formatRunSummary(record).endsWith(` · ${text}`)).toBe(true);
  });
});
