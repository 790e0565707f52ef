import { describe, expect, it } from "vitest";
import { resolveModelSettings, type ResolveModelInput } from "../../../src/agent/model/resolve-model-settings.js";
import { OpenSweError } from "../../../src/errors.js";

describe("resolveModelSettings", () => {
  const cases: Array<[string, ResolveModelInput, { modelId: string; effort: string; source: string; note?: RegExp }]> = [
    ["built-in default when nothing is set", {}, { modelId: "anthropic:claude-sonnet-4-6", effort: "medium", source: "builtin" }],
    ["deployment beats built-in", { deployment: { modelId: "claude-opus-4-7" } }, { modelId: "anthropic:claude-opus-4-7", effort: "high", source: "deployment" }],
    [
      "team beats deployment",
      { teamDefault: { modelId: "anthropic:claude-haiku-4-5" }, deployment: { modelId: "claude-opus-4-7" } },
      { modelId: "anthropic:claude-haiku-4-5", effort: "none", source: "team" },
    ],
    ["profile beats team", { profile: { modelId: "claude-opus-4-6" }, teamDefault: { modelId: "claude-haiku-4-5" } }, { modelId: "anthropic:claude-opus-4-6", effort: "high", source: "profile" }],
    ["thread beats profile", { thread: { modelId: "claude-sonnet-4-5" }, profile: { modelId: "claude-opus-4-6" } }, { modelId: "anthropic:claude-sonnet-4-5", effort: "medium", source: "thread" }],
    ["blank thread model falls through", { thread: { modelId: "  " }, profile: { modelId: "claude-opus-4-6" } }, { modelId: "anthropic:claude-opus-4-6", effort: "high", source: "profile" }],
    [
      "effort from the highest layer that sets one",
      { thread: { effort: "low" }, profile: { modelId: "claude-opus-4-6", effort: "max" } },
      { modelId: "anthropic:claude-opus-4-6", effort: "low", source: "profile" },
    ],
    [
      "max clamps down to high on a budget model",
      { thread: { modelId: "claude-sonnet-4-5", effort: "max" } },
      { modelId: "anthropic:claude-sonnet-4-5", effort: "high", source: "thread", note: /"max" is not supported by anthropic:claude-sonnet-4-5; using "high"/ },
    ],
    [
      "dated snapshot follows its family's rule",
      { thread: { modelId: "claude-sonnet-4-5-20250929", effort: "xhigh" } },
      { modelId: "anthropic:claude-sonnet-4-5-20250929", effort: "high", source: "thread", note: /using "high"/ },
    ],
    [
      "unknown effort keeps the model default with a note",
      { thread: { effort: "turbo" } },
      { modelId: "anthropic:claude-sonnet-4-6", effort: "medium", source: "builtin", note: /unknown effort "turbo"/ },
    ],
    ["effort is case-insensitive", { thread: { effort: "HIGH" } }, { modelId: "anthropic:claude-sonnet-4-6", effort: "high", source: "builtin" }],
    [
      "self-hosted model through OpenAI-compatible endpoint takes no effort",
      { teamDefault: { modelId: "qwen3-coder", effort: "high" } },
      { modelId: "openai:qwen3-coder", effort: "none", source: "team", note: /not supported by openai:qwen3-coder/ },
    ],
    ["openai reasoning model keeps its effort", { thread: { modelId: "openai:gpt-5", effort: "low" } }, { modelId: "openai:gpt-5", effort: "low", source: "thread" }],
    [
      "replay in the deployment overrides every layer",
      { thread: { modelId: "claude-opus-4-6" }, deployment: { modelId: "replay:/tmp/run.json" } },
      { modelId: "replay:/tmp/run.json", effort: "none", source: "replay" },
    ],
  ];

  it.each(cases)("%s", (_name, input, expected) => {
    const settings = resolveModelSettings(input);
    expect(settings).toMatchObject({ modelId: expected.modelId, effort: expected.effort, source: expected.source });
    if (expected.note) expect(settings.note).toMatch(expected.note);
    else expect(settings.note).toBeUndefined();
  });

  it.each<[string, ResolveModelInput, string]>([
    ["replay from a per-user profile", { profile: { modelId: "replay:/etc/passwd" } }, "model_invalid"],
    ["an unknown provider prefix", { thread: { modelId: "mystery:model" } }, "model_invalid"],
  ])("rejects %s", (_name, input, code) => {
    let caught: unknown;
    try {
      resolveModelSettings(input);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(OpenSweError);
    expect((caught as OpenSweError).code).toBe(code);
  });
});
