import { describe, expect, it } from "vitest";
import { isDismissalReply } from "../../src/review/dismissal.js";

describe("isDismissalReply: the documented grammar", () => {
  it.each([
    ["won't fix", true],
    ["Won't fix.", true],
    ["won’t fix — we rely on the caller", true],
    ["wontfix", true],
    ["WONT FIX: legacy API", true],
    ["not a bug", true],
    ["Not a bug, the value is validated upstream", true],
    ["false positive", true],
    ["By design.", true],
    ["working as intended", true],
    ["@open-swe won't fix", true],
    ["@open-swe: not a bug", true],
    ["**not a bug**", true],
    ["\n\n  dismiss  \nmore text", true],
    ["ignore this", true],
    ["will fix", false],
    ["fixed", false],
    ["is this not a bug?", false],
    ["not a bugfix release", false],
    ["won't fixate on it, changing now", false],
    ["thanks!", false],
    ["", false],
    ["intended? please explain", false],
  ])("%j → %s", (text, want) => {
    expect(isDismissalReply(text)).toBe(want);
  });
});
