import { describe, expect, it } from "vitest";
import { AgentParseError, parseAgentFile } from "../../../src/agent/subagents/agent-definition.js";

const file = (fm: string, body = "You review code.") => `---\n${fm}\n---\n${body}\n`;

describe("an agent file's frontmatter (seed 003 schema)", () => {
  it.each([
    ["name defaults to the file stem", file("description: d"), { name: "stem" }],
    ["name from frontmatter", file("name: code-reviewer"), { name: "code-reviewer" }],
    ["tools: one name", file("tools: execute"), { tools: ["execute"] }],
    ["tools: a list", file("tools:\n  - read_file\n  - grep"), { tools: ["read_file", "grep"] }],
    ["tools omitted: undefined (the file tools)", file("name: x"), { tools: undefined }],
    ["skills: a comma string", file("skills: a, b ,c"), { skills: ["a", "b", "c"] }],
    ["skills: a list", file("skills: [a, b]"), { skills: ["a", "b"] }],
    ["model defaults to inherit", file("name: x"), { model: "inherit" }],
    ["model: an id", file("model: claude-haiku-4-5"), { model: "claude-haiku-4-5" }],
    ["color", file("color: purple"), { color: "purple" }],
    ["max_iteration_per_run", file("max_iteration_per_run: 3"), { maxIterationPerRun: 3 }],
    ["max_budget_per_run", file("max_budget_per_run: 0.5"), { maxBudgetPerRun: 0.5 }],
    ["hooks kept", file("hooks:\n  pre_tool: [x]"), { hooks: { pre_tool: ["x"] } }],
    ["mcp_config", file("mcp_config:\n  fs: { command: x }"), { mcpConfig: { fs: { command: "x" } } }],
    ["mcp_servers is mcp_config's alias", file("mcp_servers:\n  fs: { command: x }"), { mcpConfig: { fs: { command: "x" } } }],
    ["permission_mode", file("permission_mode: confirm_risky"), { permissionMode: "confirm_risky" }],
    ["permission_mode omitted inherits", file("name: x"), { permissionMode: undefined }],
    ["condenser omitted: default", file("name: x"), { condenser: { kind: "default" } }],
    ["condenser: none", file("condenser: none"), { condenser: { kind: "none" } }],
    ["condenser: false", file("condenser: false"), { condenser: { kind: "none" } }],
    ["condenser: a mapping", file("condenser:\n  max_size: 80"), { condenser: { kind: "custom", config: { max_size: 80 } } }],
    ["unknown keys are metadata", file("audience: maintainers\nlevel: 2"), { metadata: { audience: "maintainers", level: 2 } }],
    [
      "examples, case-insensitive",
      file("description: |\n  Reviews.\n  <example>review this PR</example>\n  <EXAMPLE> security review? </Example>"),
      { whenToUseExamples: ["review this PR", "security review?"] },
    ],
    ["the body is the prompt", file("name: x", "\nYou are meticulous.\n\nBe brief."), { prompt: "You are meticulous.\n\nBe brief." }],
    ["empty frontmatter", "---\n---\nBody.\n", { name: "stem", prompt: "Body." }],
    ["no frontmatter: all body, stem name", "Just a prompt.\n", { name: "stem", prompt: "Just a prompt." }],
  ])("%s", (_title, text, expected) => {
    const got = parseAgentFile(text, "stem") as unknown as Record<string, unknown>;
    expect(Object.fromEntries(Object.keys(expected).map((k) => [k, got[k]]))).toEqual(expected);
  });

  it.each([
    ["invalid YAML", file("tools: [a, b"), /invalid YAML frontmatter/],
    ["frontmatter not a mapping", file("- a\n- b"), /not a mapping/],
    ["unclosed frontmatter", "---\nname: x\nbody", /no closing ---/],
    ["max_iteration_per_run not positive", file("max_iteration_per_run: 0"), /max_iteration_per_run/],
    ["max_iteration_per_run not an integer", file("max_iteration_per_run: 1.5"), /max_iteration_per_run/],
    ["max_budget_per_run negative", file("max_budget_per_run: -1"), /max_budget_per_run/],
    ["permission_mode unknown", file("permission_mode: yolo"), /permission_mode/],
    ["unknown model", file("model: claude-banana"), /unknown model "claude-banana"/],
    ["a replay model", file("model: replay:/tmp/x.json"), /replay file/],
    ["both mcp_config and mcp_servers", file("mcp_config: {a: {}}\nmcp_servers: {b: {}}"), /both set/],
    ["a bad name", file("name: ../etc"), /name/],
    ["tools not names", file("tools: 3"), /tools/],
  ])("%s is a parse error with the reason", (_title, text, reason) => {
    const err = (() => {
      try {
        parseAgentFile(text, "stem");
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(AgentParseError);
    expect((err as AgentParseError).reason).toMatch(reason);
  });
});
