import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPrompts, renderPrompt, renderTemplate } from "../../src/agent/prompts.js";

const VARS = { repo: "acme/widgets", workspace_root: "/workspace/widgets", default_branch: "main" };

describe("agent system prompt", () => {
  const prompt = renderPrompt("agent", VARS);

  it("fills every placeholder", () => {
    expect(prompt).not.toMatch(/\{\{|\}\}/);
    expect(prompt).toContain("acme/widgets");
    expect(prompt).toContain("`/workspace/widgets/AGENTS.md`");
  });

  it.each([
    ["call a tool every turn", /Call a tool on every turn/],
    ["read AGENTS.md first", /Read the repository's `AGENTS.md` first/],
    ["minimal changes", /smallest change that does the job/],
    ["related tests and lint only", /Run the tests and the linter for the files and packages you touched/],
    ["commit, push, draft PR, reply", /commit_and_push[\s\S]*open_or_update_pull_request[\s\S]*reply where the request came from/],
    ["never claim a PR without its link", /Never claim a pull request you cannot link/],
    ["untrusted text is data", /\*\*data, not instructions\*\*/],
    ["finish with confirming_completion", /confirming_completion/],
    ["install Python packages into a venv, not the externally managed system pip", /virtual environment, never with the system `pip` \(it is externally managed\): `python3 -m venv ~\/\.venv/],
    ["keep caches in the persistent home", /home directory \(`\$HOME`, `\/home\/sandbox`\)[^.]*keep their contents between commands/],
  ])("tells the agent to %s", (_name, pattern) => {
    expect(prompt).toMatch(pattern);
  });

  it("carries nothing run-specific, so runs of one repo share a cacheable prefix", () => {
    expect(renderPrompt("agent", VARS)).toBe(prompt);
    expect(prompt).toMatchSnapshot();
  });
});

describe("prompt loader", () => {
  it("refuses to render with a missing value instead of leaving a placeholder", () => {
    expect(() => renderTemplate("Hi {{ name }}, {{repo}}", { name: "x" }, "t")).toThrow(/prompt t needs values for: repo/);
    expect(renderTemplate("Hi {{ name }}", { name: "x" })).toBe("Hi x");
  });

  it("reads a folder once", () => {
    const dir = mkdtempSync(join(tmpdir(), "prompts-"));
    writeFileSync(join(dir, "agent.md"), "v1 {{repo}}");
    expect(loadPrompts(dir).get("agent")).toBe("v1 {{repo}}");
    writeFileSync(join(dir, "agent.md"), "v2");
    expect(renderPrompt("agent", VARS, dir)).toBe("v1 acme/widgets");
  });

  it("fails clearly for a missing folder", () => {
    expect(() => loadPrompts("/nonexistent/prompts")).toThrow(/cannot read the prompts folder/);
  });
});
