import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { runToolNames } from "../../src/runs/run-tool-names.js";
import { githubTools } from "../../src/github/tools/index.js";
import type { GitHubRunContext } from "../../src/github/tools/run-context.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { ROOT } from "../helpers/paths.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], { cwd, encoding: "utf8" });
const write = (root: string, files: Record<string, string>) => {
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), c);
  }
};

const REVIEWER = `---
name: code-reviewer
description: |
  Reviews code changes.
  <example>please review this PR</example>
tools: [read_file, grep, execute]
skills: release
model: claude-haiku-4-5
permission_mode: confirm_risky
max_iteration_per_run: 5
max_budget_per_run: 0.25
audience: maintainers
hooks: { pre_tool: ./check.sh }
condenser: none
---
You are a meticulous code reviewer.
`;

function cli(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [join(ROOT, "bin/open-swe.mjs"), ...args], {
    cwd: mkdtempSync(join(tmpdir(), "cwd-")),
    env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), DATA_DIR: mkdtempSync(join(tmpdir(), "d-")), ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
}

describe("open-swe agents list", () => {
  it("a local path: the committed agents at HEAD with where each came from, and the files passed over with why", () => {
    const repo = mkdtempSync(join(tmpdir(), "agents-cli-"));
    git(repo, "init", "-q", "-b", "main");
    write(repo, {
      ".agents/agents/code-reviewer.md": REVIEWER,
      ".open-swe/agents/code-reviewer.md": "---\nname: code-reviewer\n---\nolder\n",
      ".agents/agents/README.md": "# our agents\n",
      ".agents/agents/broken.md": "---\nmax_budget_per_run: free\n---\n",
      ".agents/skills/release/SKILL.md": "---\nname: release\ndescription: how we release\n---\nsteps\n",
    });
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "agents");
    write(repo, { ".agents/agents/uncommitted.md": "---\nname: uncommitted\n---\nx\n" });
    const users = mkdtempSync(join(tmpdir(), "users-"));
    write(join(users, "alice"), { ".agents/agents/helper.md": "---\ndescription: alice's helper\n---\nHelp.\n", ".agents/agents/code-reviewer.md": "---\n---\nmine\n" });
    const res = cli(["agents", "list", "--repo", repo, "--user", "alice"], { USER_AGENTS_ROOT: users });
    expect(res.stderr).toBe("");
    expect(res.status).toBe(0);
    const out = JSON.parse(res.stdout) as { agents: Array<Record<string, unknown>>; passedOver: Array<Record<string, unknown>>; skills: unknown[] };
    expect(out.agents).toEqual([
      {
        name: "code-reviewer",
        source: "project",
        file: ".agents/agents/code-reviewer.md",
        description: "Reviews code changes.\n<example>please review this PR</example>",
        tools: ["read_file", "grep", "execute"],
        skills: ["release"],
        model: "claude-haiku-4-5",
        permissionMode: "confirm_risky",
        // confirm_risky: execute asks, the reads do not.
        effectivePolicy: { permissionMode: "confirm_risky", ask: ["execute"], denied: [], allowed: ["grep", "read_file"] },
        // Parsed, reported, and not acted on.
        notActedOn: ["hooks", "condenser", "audience"],
        maxIterationPerRun: 5,
        maxBudgetPerRun: 0.25,
        whenToUseExamples: ["please review this PR"],
        metadata: { audience: "maintainers" },
        color: null,
        hooks: { pre_tool: "./check.sh" },
        mcpConfig: null,
        condenser: { kind: "none" },
      },
      expect.objectContaining({ name: "helper", source: "user", file: join(users, "alice/.agents/agents/helper.md"), description: "alice's helper", tools: null, model: "inherit" }),
      expect.objectContaining({ name: "general-purpose", source: "builtin", file: null }),
    ]);
    expect(out.passedOver).toEqual([
      { file: ".agents/agents/README.md", reason: "readme" },
      { file: ".agents/agents/broken.md", reason: "parse_error", detail: expect.stringContaining("max_budget_per_run") },
      { file: ".open-swe/agents/code-reviewer.md", reason: "shadowed", by: ".agents/agents/code-reviewer.md" },
      { file: join(users, "alice/.agents/agents/code-reviewer.md"), reason: "shadowed", by: ".agents/agents/code-reviewer.md" },
    ]);
    expect(out.skills).toEqual([{ name: "release", source: "project" }]);
  });

  it("owner/name: the default branch of the repository fetched into the mirror", () => {
    const remote = makeBareRemote("acme", "widgets", { "README.md": "# w\n" });
    const work = mkdtempSync(join(tmpdir(), "w-"));
    git(work, "clone", "-q", remote.bare, ".");
    write(work, { ".open-swe/agents/tester.md": "---\ndescription: runs tests\ntools: execute\n---\nRun the tests.\n" });
    git(work, "add", "-A");
    git(work, "commit", "-qm", "tester");
    git(work, "push", "-q", "origin", "main");
    const res = cli(["agents", "list", "--repo", "acme/widgets"], { GIT_REMOTE_TEMPLATE: remote.template });
    expect(res.stderr).toBe("");
    const out = JSON.parse(res.stdout) as { agents: Array<{ name: string; source: string; tools: unknown }> };
    expect(out.agents.map((a) => [a.name, a.source, a.tools])).toEqual([
      ["tester", "project", ["execute"]],
      ["general-purpose", "builtin", null],
    ]);
  });

  it.each([
    [["agents", "list"], /^open-swe: agents list needs --repo <path\|owner\/name>/],
    [["agents", "list", "--repo", "a/b", "--usr", "x"], /^open-swe: unknown option --usr for `open-swe agents list`/],
    [["agents", "list", "--repo", "a/b", "--user", "../root"], /"..\/root" is not a GitHub login/],
  ])("%j is refused in one line", (args, line) => {
    const res = cli(args, { GIT_REMOTE_TEMPLATE: "http://127.0.0.1:1/{owner}/{repo}.git" });
    expect(res.status).toBe(2);
    expect(res.stderr.trim()).toMatch(line);
  });

  it("knows every host-side tool a run can have, read off the tool factories (GitHub's and each source's)", () => {
    const names = (githubTools({ verdictAuthorized: false } as GitHubRunContext, { isPullRequest: true }) as StructuredToolInterface[]).map((t) => t.name);
    expect(runToolNames()).toEqual(
      expect.arrayContaining(["commit_and_push", ...names, "http_request", "fetch_url", "web_search", "slack_thread_reply", "linear_create_issue", "jira_update_issue", "confluence_update_page"]),
    );
  });

  it("accepts an agent that names a Slack tool (one tool list, not a hand-kept copy)", () => {
    const repo = mkdtempSync(join(tmpdir(), "agents-slack-"));
    git(repo, "init", "-q", "-b", "main");
    write(repo, { ".agents/agents/notifier.md": "---\nname: notifier\ntools: [slack_thread_reply, read_file]\n---\nTell the channel.\n" });
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "agent");
    const res = cli(["agents", "list", "--repo", repo], {});
    expect(res.stderr).toBe("");
    const out = JSON.parse(res.stdout) as { agents: Array<{ name: string; tools: string[] | null }>; passedOver: unknown[] };
    expect(out.passedOver).toEqual([]);
    expect(out.agents.find((a) => a.name === "notifier")?.tools).toEqual(["slack_thread_reply", "read_file"]);
  });
});
