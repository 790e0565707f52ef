import { describe, expect, it } from "vitest";
import { composeSystemPrompt, type PromptParts } from "../../src/agent/compose-prompt.js";

describe("composeSystemPrompt (seed 004)", () => {
  it.each<[string, PromptParts, string]>([
    ["global alone", { global: "G" }, "G"],
    ["every part, in order", { global: "G", mode: "M", repoInstructions: "R", userInstructions: "U", context: ["T", "S"] }, "G\n\nM\n\nR\n\nU\n\nT\n\nS"],
    ["the order is fixed whatever the key order", { context: ["T"], userInstructions: "U", repoInstructions: "R", mode: "M", global: "G" }, "G\n\nM\n\nR\n\nU\n\nT"],
    ["empty and blank parts are dropped", { global: "G", mode: "", repoInstructions: "  \n ", context: ["", "T"] }, "G\n\nT"],
    ["parts are trimmed", { global: "G\n\n", mode: "\n M \n" }, "G\n\nM"],
    ["all empty", { global: "" }, ""],
  ])("%s", (_t, parts, expected) => {
    expect(composeSystemPrompt(parts)).toBe(expected);
  });

  it("is deterministic: the same parts give the same bytes (the cached prefix)", () => {
    const parts = { global: "G", context: ["T"] };
    expect(composeSystemPrompt(parts)).toBe(composeSystemPrompt({ ...parts }));
  });
});
