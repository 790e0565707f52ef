import { describe, expect, it } from "vitest";
import { repoFileProblems } from "../../src/config/repo-file-problems.js";

describe("repoFileProblems: one line per problem, naming the field", () => {
  it.each([
    ["an empty file", "", []],
    ["the defaults written out", "review:\n  auto: true\nautofix:\n  max_attempts: 3\nfooter: comment\n", []],
    ["_extends (Probot resolves it)", "_extends: org-config\nagent:\n  network: false\n", []],
    ["an MCP server and a tool policy", 'agent:\n  tools:\n    execute: ask\n  mcp_servers:\n    docs: { url: "https://mcp.example.com/mcp" }\n', []],
    ["a typo in a key", "review:\n  atuo: true\n", ["review.atuo: unknown key (see schemas/open-swe.schema.json)"]],
    ["an unknown top-level key", "reviews: {}\n", ["reviews: unknown key (see schemas/open-swe.schema.json)"]],
    ["a string for a boolean", 'agent:\n  network: "yes"\n', ["agent.network: Invalid input: expected boolean, received string"]],
    ["a value out of range", "autofix:\n  max_attempts: 50\n", [expect.stringMatching(/^autofix\.max_attempts: Too big/)]],
    ["a bad enum", "footer: sometimes\n", [expect.stringMatching(/^footer: Invalid option/)]],
    ["a bad tool policy", "agent:\n  tools:\n    execute: maybe\n", [expect.stringMatching(/^agent\.tools\.execute: Invalid option/)]],
    ["a title template without {title}", 'pr:\n  title_template: "fix: {issue}"\n', ["pr.title_template: must contain {title}"]],
    ["two problems, two lines", "review:\n  auto: 1\nfooter: x\n", [expect.stringMatching(/^review\.auto: /), expect.stringMatching(/^footer: /)]],
    ["not YAML", "review: [\n", [expect.stringMatching(/^\.github\/open-swe\.yml is not YAML: /)]],
    ["not a mapping", "- a\n- b\n", [expect.stringMatching(/^\(root\): Invalid input: expected object, received array/)]],
  ])("%s", (_, text, problems) => {
    expect(repoFileProblems(text)).toEqual(problems);
  });
});
