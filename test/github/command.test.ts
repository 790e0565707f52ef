import { describe, expect, it } from "vitest";
import { hasMention, parseCommand, type Command } from "../../src/github/command.js";

const H = ["open-swe", "openswe"];

describe("parseCommand", () => {
  const table: [string, Command | null][] = [
    ["@open-swe add a CONTRIBUTING.md", { kind: "task", text: "add a CONTRIBUTING.md" }],
    ["@OPEN-SWE fix the flaky test", { kind: "task", text: "fix the flaky test" }],
    ["@openswe fix it", { kind: "task", text: "fix it" }],
    ["@open-swe, please bump lodash", { kind: "task", text: "please bump lodash" }],
    ["@open-swe: rename foo to bar", { kind: "task", text: "rename foo to bar" }],
    ["@open-swe! do it", { kind: "task", text: "do it" }],
    ["Hey @open-swe can you look?", { kind: "task", text: "can you look?" }],
    ["Could you fix the typo? @open-swe", { kind: "task", text: "Could you fix the typo?" }],
    ["@openswe-preview fix it", null],
    ["@open-swe-preview fix it", null],
    ["@open-swebot fix it", null],
    ["mail me at me@open-swe.dev", null],
    ["see https://github.com/@open-swe", null],
    ["no mention here", null],
    ["`@open-swe fix` is how you call it", null],
    ["```\n@open-swe fix\n```\nthanks", null],
    ["> @open-swe fix it\nI agree", null],
    ["@open-swe review", { kind: "review", instructions: "", verdictRequested: false }],
    ["@open-swe Review focus on security", { kind: "review", instructions: "focus on security", verdictRequested: false }],
    ["@open-swe review --verdict", { kind: "review", instructions: "", verdictRequested: true }],
    ["@open-swe review --VERDICT check auth", { kind: "review", instructions: "check auth", verdictRequested: true }],
    ["@open-swe review check auth --verdict", { kind: "review", instructions: "check auth", verdictRequested: true }],
    ["@open-swe review and approve if it looks good", { kind: "review", instructions: "and approve if it looks good", verdictRequested: false }],
    ["@open-swe review --verdicts", { kind: "review", instructions: "--verdicts", verdictRequested: false }],
    ["@open-swe re-review", { kind: "review", instructions: "", verdictRequested: false }],
    ["@open-swe autofix on", { kind: "autofix", enabled: true }],
    ["@open-swe AUTOFIX OFF", { kind: "autofix", enabled: false }],
    ["@open-swe autofix off.", { kind: "autofix", enabled: false }],
    ["@open-swe auto-fix enable", { kind: "autofix", enabled: true }],
    ["@open-swe autofix maybe", { kind: "help", reason: "`autofix` takes `on` or `off`, not `maybe`." }],
    ["@open-swe autofix", { kind: "autofix_status" }],
    ["@open-swe autofix?", { kind: "autofix_status" }],
    ["@open-swe fix ci", { kind: "fix_ci" }],
    ["@open-swe fix ci --allow-test-config", { kind: "fix_ci", allowTestConfig: true }],
    ["@open-swe fix ci --ALLOW-TEST-CONFIG", { kind: "fix_ci", allowTestConfig: true }],
    ["@open-swe fix ci --allow-test-config please", { kind: "task", text: "fix ci --allow-test-config please" }],
    ["@open-swe fix ci --allow-test-configs", { kind: "task", text: "fix ci --allow-test-configs" }],
    ["@open-swe approve a1b2c3d4", { kind: "approval", decision: "approve", id: "a1b2c3d4" }],
    ["@open-swe APPROVE A1B2C3D4.", { kind: "approval", decision: "approve", id: "a1b2c3d4" }],
    ["@open-swe deny a1b2c3d4", { kind: "approval", decision: "deny", id: "a1b2c3d4" }],
    ["@open-swe deny a1b2c3d4: too risky, use the staging db", { kind: "approval", decision: "deny", id: "a1b2c3d4", reason: "too risky, use the staging db" }],
    ["@open-swe approve the migration plan", { kind: "task", text: "approve the migration plan" }],
    ["@open-swe deny a1b2c3 please", { kind: "task", text: "deny a1b2c3 please" }],
    ["@open-swe --model claude-opus-4-6 approve a1b2c3d4", { kind: "task", text: "approve a1b2c3d4", model: "claude-opus-4-6" }],
    ["@open-swe Fix CI.", { kind: "fix_ci" }],
    ["@open-swe fix ci flakiness in the parser", { kind: "task", text: "fix ci flakiness in the parser" }],
    ["@open-swe fix cinema listing", { kind: "task", text: "fix cinema listing" }],
    ["@open-swe --model claude-sonnet-4-5 fix ci", { kind: "task", text: "fix ci", model: "claude-sonnet-4-5" }],
    ["@open-swe help", { kind: "help", reason: "" }],
    ["@open-swe", { kind: "help", reason: "The mention had no request in it." }],
    ["@open-swe help me write docs", { kind: "task", text: "help me write docs" }],
    ["@open-swe reviewer guide is outdated, update it", { kind: "task", text: "reviewer guide is outdated, update it" }],
    ["@open-swe fix it and request a review --verdict", { kind: "task", text: "fix it and request a review --verdict", verdictRequested: true }],
    ["@open-swe --verdict fix it", { kind: "task", text: "fix it", verdictRequested: true }],
    ["@open-swe fix the --verdicts flag", { kind: "task", text: "fix the --verdicts flag" }],
    ["@open-swe --model claude-opus-4-5 fix the flaky test", { kind: "task", text: "fix the flaky test", model: "claude-opus-4-5" }],
    ["@open-swe --model=gpt-5 fix it", { kind: "task", text: "fix it", model: "gpt-5" }],
    ["@open-swe --MODEL x --verdict fix it", { kind: "task", text: "fix it", model: "x", verdictRequested: true }],
    ["@open-swe fix it --model x", { kind: "task", text: "fix it --model x" }],
    ["@open-swe --model x", { kind: "help", reason: "`--model` needs a request after it, e.g. `@open-swe --model <id> fix the flaky test`." }],
    ["@open-swe --model x help me", { kind: "task", text: "help me", model: "x" }],
    ["@open-swe review --model claude-x --verdict check auth", { kind: "review", instructions: "check auth", verdictRequested: true, model: "claude-x" }],
    ["@open-swe --model claude-x review", { kind: "review", instructions: "", verdictRequested: false, model: "claude-x" }],
  ];
  it.each(table)("%j", (body, expected) => {
    expect(parseCommand(body, H)).toEqual(expected);
  });

  // Rows aimed at what StrykerJS showed untested: fences, quotes, line endings, spacing, punctuation.
  it.each<[string, Command | null]>([
    ["~~~\n@open-swe fix\n~~~\nthanks", null],
    ["~~~\n@open-swe fix", null],
    ["```\n@open-swe fix", null],
    ["```\nnot this\n```\n@open-swe fix it", { kind: "task", text: "fix it" }],
    ["~~~\nnot this\n~~~\n@open-swe fix it", { kind: "task", text: "fix it" }],
    ["~~~\nnot this\n~~~ @open-swe fix it", { kind: "task", text: "fix it" }],
    ["use `x` then @open-swe fix it", { kind: "task", text: "fix it" }],
    ["`a`@open-swe fix", { kind: "task", text: "fix" }],
    ["   > @open-swe fix it\r\nok", null],
    ["> quoted\r\n@open-swe fix it", { kind: "task", text: "fix it" }],
    ["a > b, so @open-swe fix it", { kind: "task", text: "fix it" }],
    ["@open-swe ,;: fix it", { kind: "task", text: "fix it" }],
    ["@open-swe \t fix   it", { kind: "task", text: "fix   it" }],
    ["@open-swe review:", { kind: "review", instructions: "", verdictRequested: false }],
    ["@open-swe review!! check auth", { kind: "review", instructions: "check auth", verdictRequested: false }],
    ["@open-swe review   --verdict    check\n auth", { kind: "review", instructions: "check auth", verdictRequested: true }],
    ["@open-swe review --approve-or-request-changes", { kind: "review", instructions: "", verdictRequested: true }],
    ["@open-swe autofix   on", { kind: "autofix", enabled: true }],
    ["@open-swe autofix on!?", { kind: "autofix", enabled: true }],
    ["@open-swe autofix yes please", { kind: "autofix", enabled: true }],
    ["@open-swe autofix\ton", { kind: "autofix", enabled: true }],
    ["@open-swe help!", { kind: "help", reason: "" }],
    ["@open-swe help.", { kind: "help", reason: "" }],
    ["@open-swe help\tme", { kind: "task", text: "help\tme" }],
  ])("%j", (body, expected) => {
    expect(parseCommand(body, H)).toEqual(expected);
  });

  it("prefers the longest handle and treats handle characters literally", () => {
    expect(parseCommand("@open-swe-bot fix", ["open-swe", "open-swe-bot"])).toEqual({ kind: "task", text: "fix" });
    expect(parseCommand("@open-swe-bot fix", ["open-swe-bot", "open-swe"])).toEqual({ kind: "task", text: "fix" });
    expect(parseCommand("@my.bot fix", ["my.bot"])).toEqual({ kind: "task", text: "fix" });
    expect(parseCommand("@myxbot fix", ["my.bot"])).toBeNull();
    expect(parseCommand("@a+b fix", ["a+b"])).toEqual({ kind: "task", text: "fix" });
    // Patterns are cached per handle list: a different list is a different pattern.
    expect(parseCommand("@one fix", ["one", "two"])).toEqual({ kind: "task", text: "fix" });
    expect(parseCommand("@one fix", ["two"])).toBeNull();
  });

  it("uses configured handles only", () => {
    expect(parseCommand("@mybot fix", ["mybot"])).toEqual({ kind: "task", text: "fix" });
    expect(parseCommand("@open-swe fix", ["mybot"])).toBeNull();
  });

  it("keeps multi-line tasks whole", () => {
    expect(parseCommand("@open-swe do this:\n- a\n- b", H)).toEqual({ kind: "task", text: "do this:\n- a\n- b" });
  });
});

describe("hasMention", () => {
  it.each([
    ["Please @open-swe take this", true],
    ["@openswe-preview take this", false],
    ["```@open-swe```", false],
  ] as const)("%j → %s", (body, expected) => {
    expect(hasMention(body, H)).toBe(expected);
  });
});
