import { describe, expect, it } from "vitest";
import type { AgentJob } from "../../src/queue/schemas.js";
import { runFacts } from "../../src/runs/count-run.js";
import type { RunRecord } from "../../src/shared/run-record.js";

const data = (trigger: AgentJob["trigger"]) => ({ owner: "Octo", repo: "Hello", trigger }) as AgentJob;
const record = { modelId: "sonnet", durationMs: 94_000, inputTokens: 100, outputTokens: 20, costUsd: 0.5 } as RunRecord;

describe("runFacts", () => {
  it.each([
    [
      "a run that ended",
      { data: data("comment"), status: "completed", record },
      { runId: "r", repo: "Octo/Hello", at: 10_000, outcome: "completed", durationMs: 94_000, model: "sonnet", inputTokens: 100, outputTokens: 20, costUsd: 0.5 },
    ],
    ["a run that threw: time since start, no model", { data: data("comment"), status: "failed", record: null }, { runId: "r", repo: "Octo/Hello", at: 10_000, outcome: "failed", durationMs: 4_000 }],
    [
      "a CI fix carries its result",
      { data: data("ci_fix"), status: "completed", record: { ...record, costUsd: undefined } as unknown as RunRecord, autofix: "pushed" },
      { runId: "r", repo: "Octo/Hello", at: 10_000, outcome: "completed", durationMs: 94_000, model: "sonnet", inputTokens: 100, outputTokens: 20, autofix: "pushed" },
    ],
    [
      "a fix result on another trigger is not an autofix",
      { data: data("comment"), status: "failed", record: null, autofix: "failed" },
      { runId: "r", repo: "Octo/Hello", at: 10_000, outcome: "failed", durationMs: 4_000 },
    ],
    ["a paused run is counted by the run that resumes it", { data: data("comment"), status: "awaiting_approval", record }, null],
  ] as const)("%s", (_, o, want) => expect(runFacts({ ...(o as never as Parameters<typeof runFacts>[0]), runId: "r", startedAt: 6_000, now: 10_000 })).toEqual(want));
});
