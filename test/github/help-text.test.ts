import { describe, expect, it } from "vitest";
import { helpText } from "../../src/github/help-text.js";

describe("@open-swe help", () => {
  // Every form in the README's "Using it" table that a comment can take (the README says help shows "the list above").
  it.each([
    "@open-swe <task>",
    "@open-swe <task> --verdict",
    "@open-swe --model <id> <task>",
    "@open-swe review [notes]",
    "@open-swe review --verdict [notes]",
    "@open-swe review --model <id> [notes]",
    "@open-swe fix ci",
    "fix ci --allow-test-config",
    "@open-swe autofix on|off",
    "@open-swe autofix",
    "@open-swe approve <id>",
    "@open-swe deny <id> [reason]",
  ])("lists `%s`", (form) => {
    expect(helpText("open-swe", "")).toContain(`\`${form}\``);
  });

  it("leads with the reason when there is one", () => {
    expect(helpText("open-swe", "I did not understand `@open-swe frobnicate`.").split("\n")[0]).toBe("I did not understand `@open-swe frobnicate`.");
  });
});
