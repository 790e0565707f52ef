import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], { cwd, encoding: "utf8" });

function repoWith(files: Record<string, string>): string {
  const repo = mkdtempSync(join(tmpdir(), "open-swe-agents-"));
  git(repo, "init", "-q", "-b", "main");
  for (const [p, c] of Object.entries({ "README.md": "# demo\n", ...files })) {
    mkdirSync(dirname(join(repo, p)), { recursive: true });
    writeFileSync(join(repo, p), c);
  }
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "init");
  return repo;
}

function run(repo: string, script: unknown[], env: Record<string, string> = {}, args: string[] = []) {
  const file = join(mkdtempSync(join(tmpdir(), "script-")), "script.json");
  writeFileSync(file, JSON.stringify(script));
  return spawnSync(process.execPath, [join(ROOT, "bin/open-swe.mjs"), "run", "--repo", repo, "--model", `replay:${file}`, ...args, "do the task"], {
    cwd: mkdtempSync(join(tmpdir(), "cwd-")),
    env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), DATA_DIR: mkdtempSync(join(tmpdir(), "d-")), ...env },
    encoding: "utf8",
    timeout: 90_000,
  });
}

describe("open-swe run with the repository's agents and a budget (replayed model)", () => {
  it("the parent's `task` reaches the committed file agent, whose max_iteration_per_run stops it with a message; a broken file is named", () => {
    const repo = repoWith({
      ".agents/agents/lister.md": "---\ndescription: lists files\ntools: [ls]\nmax_iteration_per_run: 1\n---\nList, then stop.\n",
      ".agents/agents/broken.md": "---\ntools: [ls, launch_missiles]\n---\nx\n",
    });
    const res = run(repo, [
      { tool_calls: [{ name: "task", args: { description: "list the repo", subagent_type: "lister" } }] },
      { tool_calls: [{ name: "ls", args: { path: "/workspace" } }] },
      { tool_calls: [{ name: "reply_to_user", args: { body: "listed" } }] },
      { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] },
    ]);
    expect(res.stderr).toBe("");
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/^agent file skipped: \.agents\/agents\/broken\.md: unknown tool "launch_missiles"/m);
    expect(res.stdout).toMatch(/· task \{"description":"list the repo","subagent_type":"lister"\}/);
    expect(res.stdout).toMatch(/↳ Stopped: subagent "lister" reached its max_iteration_per_run of 1 model calls for this run/);
    expect(res.stdout).toContain("── agent ──\nlisted");
  });

  it("AGENT_MAX_BUDGET_USD stops the run before the model call that would cross it, and says what was spent", () => {
    const repo = repoWith({});
    const res = run(
      repo,
      [
        // $0.0195 at Sonnet's rates; the next call's input (the system prompt alone) takes it past $0.02.
        { tool_calls: [{ name: "write_file", args: { file_path: "/workspace/A.md", content: "a\n" } }], model: "anthropic:claude-sonnet-4-6", usage: { input_tokens: 6000, output_tokens: 100 } },
        { tool_calls: [{ name: "commit_and_push", args: { message: "never" } }] },
      ],
      { AGENT_MAX_BUDGET_USD: "0.02" },
    );
    expect(res.stderr).toBe("");
    expect(res.status).toBe(0);
    expect(res.stdout).toContain("· model call 1\n");
    expect(res.stdout).not.toContain("commit_and_push");
    expect(res.stdout).toContain("no changes were committed");
    expect(res.stdout).toContain("stopped: the next model call would have taken the run past its budget of $0.02; spent $0.0195");
  });

  it("skills are offered from the mirror: the agent reads SKILL.md through its file tools; nothing is put in the sandbox", () => {
    const repo = repoWith({ ".agents/skills/release/SKILL.md": "---\nname: release\ndescription: how we cut a release\n---\nStep one: tag it.\n" });
    const res = run(
      repo,
      [
        { tool_calls: [{ name: "read_file", args: { file_path: "/skills/release/SKILL.md" } }] },
        { tool_calls: [{ name: "execute", args: { command: "ls /skills 2>&1 || true" } }] },
        { tool_calls: [{ name: "write_file", args: { file_path: "/skills/release/SKILL.md", content: "hijacked" } }] },
        { tool_calls: [{ name: "reply_to_user", args: { body: "read it" } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] },
      ],
      {},
      ["--context", "README.md", "--context", ".agents"],
    );
    expect(res.stderr).toBe("");
    expect(res.status).toBe(0);
    // --context: the committed file and a directory's tree ride along with the request, from the mirror.
    const transcript = JSON.parse(readFileSync(/^transcript: (.+)$/m.exec(res.stdout)![1]!, "utf8")) as Array<{ type: string; content: unknown }>;
    expect(transcript[0]!.content).toEqual([
      { type: "text", text: expect.stringContaining("<request>\ndo the task\n</request>") },
      { type: "text", text: '<context_file path="README.md">\n# demo\n\n</context_file>' },
      { type: "text", text: '<context_directory path=".agents">\nskills/\n  release/\n    SKILL.md\n</context_directory>' },
    ]);
    expect(res.stdout).toMatch(/· read_file \{"file_path":"\/skills\/release\/SKILL\.md"\}\n  ↳ .*description: how we cut a release/);
    expect(res.stdout).toMatch(/· execute \{"command":"ls \/skills 2>&1 \|\| true"\}\n  ↳ .*No such file or directory/);
    expect(res.stdout).toMatch(/· write_file .*\n  ↳ .*read-only/);
  });
});
