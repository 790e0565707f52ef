import { describe, expect, it } from "vitest";
import { fallbackModelSettings } from "../../../src/agent/model/fallback-model-settings.js";
import { resolveModelSettings } from "../../../src/agent/model/resolve-model-settings.js";

describe("fallbackModelSettings", () => {
  it.each([
    ["table default for opus", "claude-opus-4-7", "high", undefined, { modelId: "anthropic:claude-sonnet-4-6", effort: "high" }],
    ["configured fallback wins, effort clamped", "claude-opus-4-7", "max", "claude-haiku-4-5", { modelId: "anthropic:claude-haiku-4-5", effort: "high" }],
    ["no fallback when it is the primary", "claude-sonnet-4-5", undefined, "anthropic:claude-sonnet-4-5", undefined],
    ["no fallback when the model has none and none is configured", "claude-haiku-4-5", undefined, undefined, undefined],
    [
      "across providers: Bedrock first, Anthropic's API second",
      "bedrock:us.anthropic.claude-opus-4-7-v1:0",
      "high",
      "claude-sonnet-4-6",
      { modelId: "anthropic:claude-sonnet-4-6", provider: "anthropic", effort: "high" },
    ],
    ["across providers: Azure first, Vertex second", "azure:gpt-5", "low", "vertex:claude-sonnet-4-5@20250929", { modelId: "vertex:claude-sonnet-4-5@20250929", provider: "vertex", effort: "low" }],
    ["a cloud's Claude takes no Anthropic default fallback (the operator names one)", "bedrock:us.anthropic.claude-opus-4-7-v1:0", undefined, undefined, undefined],
  ])("%s", (_name, modelId, effort, fallbackModel, expected) => {
    const primary = resolveModelSettings({ thread: { modelId, effort } });
    const result = fallbackModelSettings(primary, fallbackModel ? { fallbackModel } : {});
    if (expected === undefined) expect(result).toBeUndefined();
    else expect(result).toMatchObject(expected);
  });

  it("never falls back from a replayed run", () => {
    const primary = resolveModelSettings({ deployment: { modelId: "replay:/tmp/x.json" } });
    expect(fallbackModelSettings(primary, { fallbackModel: "claude-sonnet-4-6" })).toBeUndefined();
  });
});
