import { describe, expect, it } from "vitest";
import { parseAgentFile } from "../../../src/agent/subagents/agent-definition.js";
import { buildFileSubagents } from "../../../src/agent/subagents/build-file-subagents.js";
import { effectivePolicy, keysNotActedOn, keysNotActedOnNote } from "../../../src/agent/subagents/permission-policy.js";
import { RunMeter } from "../../../src/agent/run-meter.js";

const TOOLS = ["read_file", "grep", "execute", "write_file", "github_comment", "http_request", "mcp__docs__search", "get_pr_checks"];

describe("effectivePolicy (pure): permission_mode over the run's policies", () => {
  it.each([
    [undefined, { denied: [], ask: [] }, { ask: [], denied: [] }],
    ["never_confirm", { denied: ["http_request"], ask: ["execute"] }, { ask: ["execute"], denied: ["http_request"] }],
    [
      "always_confirm",
      { denied: ["http_request"], ask: [] },
      { ask: ["execute", "get_pr_checks", "github_comment", "grep", "mcp__docs__search", "read_file", "write_file"], denied: ["http_request"] },
    ],
    ["confirm_risky", { denied: [], ask: ["get_pr_checks"] }, { ask: ["execute", "get_pr_checks", "github_comment", "http_request", "mcp__docs__search", "write_file"], denied: [] }],
  ] as const)("%s over %j", (mode, run, expected) => {
    const p = effectivePolicy(mode, TOOLS, run);
    expect({ ask: p.ask, denied: p.denied }).toEqual(expected);
    expect([...p.ask, ...p.denied, ...p.allowed].sort()).toEqual([...TOOLS].sort());
  });
});

const agent = (frontmatter: string) => {
  const d = parseAgentFile(`---\n${frontmatter}\n---\nbody\n`, "a.md");
  return { definition: d, source: "project" as const, file: "a.md" };
};

describe("keysNotActedOn (pure)", () => {
  it("names hooks, mcp_config, a non-default condenser and unknown keys; nothing for a plain file", () => {
    expect(keysNotActedOn(agent("name: a").definition)).toEqual([]);
    expect(keysNotActedOn(agent("name: a\nhooks: { x: y }\nmcp_config: { s: {} }\ncondenser: none\nzeta: 1\nalpha: 2").definition)).toEqual(["hooks", "mcp_config", "condenser", "alpha", "zeta"]);
    expect(keysNotActedOnNote([agent("name: a\ncondenser: none")])).toBe("Agent file keys that were read but are not acted on in this version:\n- `a`: `condenser`");
    expect(keysNotActedOnNote([agent("name: a")])).toBeUndefined();
  });
});

describe("buildFileSubagents: permission_mode becomes the agent's approval list", () => {
  const build = (frontmatter: string) =>
    buildFileSubagents({
      agents: [agent(frontmatter)],
      parentSystemPrompt: "p",
      tools: [],
      middlewareFor: () => [],
      meter: new RunMeter(),
      runModelId: "replay",
      runPolicies: { denied: [], ask: ["grep"] },
    })[0]!;
  it.each([
    ["name: a\npermission_mode: always_confirm\ntools: [read_file, execute]", ["execute", "read_file"]],
    ["name: a\npermission_mode: confirm_risky\ntools: [read_file, execute]", ["execute"]],
    ["name: a\npermission_mode: never_confirm\ntools: [read_file, grep]", ["grep"]],
  ])("%s", (fm, ask) => expect(Object.keys(build(fm).interruptOn ?? {}).sort()).toEqual(ask));
  it("no permission_mode: the run's approval list (deepagents' default), nothing of its own", () => {
    expect(build("name: a\ntools: [read_file]").interruptOn).toBeUndefined();
  });
});
