import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], { cwd, encoding: "utf8" });

describe("open-swe run (local, replayed model)", () => {
  // Two CLI processes (the run, then `runs ls`): more than the default timeout on a loaded machine.
  it("leaves a branch in the working copy and prints it with the diff; says the run was replayed", { timeout: 120_000 }, () => {
    const repo = mkdtempSync(join(tmpdir(), "open-swe-local-"));
    git(repo, "init", "-q", "-b", "main");
    writeFileSync(join(repo, "README.md"), "# demo\n");
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "init");
    writeFileSync(join(repo, "notes.txt"), "not committed\n");
    const script = join(repo, "..", `script-${Date.now()}.json`);
    writeFileSync(
      script,
      JSON.stringify([
        { tool_calls: [{ name: "write_file", args: { file_path: "/workspace/CONTRIBUTING.md", content: "# Contributing\n" } }] },
        { tool_calls: [{ name: "commit_and_push", args: { message: "Add CONTRIBUTING.md" } }] },
        { tool_calls: [{ name: "reply_to_user", args: { body: "Added CONTRIBUTING.md" } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] },
      ]),
    );
    const data = mkdtempSync(join(tmpdir(), "d-"));
    const recorded = join(data, "recorded.json");
    const res = spawnSync(process.execPath, [join(ROOT, "bin/open-swe.mjs"), "run", "--repo", repo, "--model", `replay:${script}`, "--record", recorded, "add a CONTRIBUTING.md"], {
      cwd: mkdtempSync(join(tmpdir(), "cwd-")),
      env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), DATA_DIR: data },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(res.stderr).toBe("");
    expect(res.status).toBe(0);
    const branch = /^branch: (open-swe\/[0-9a-f]{8}-add-a-contributing-md) \(in /m.exec(res.stdout)?.[1];
    expect(branch).toBeDefined();
    expect(res.stdout).toContain("+# Contributing");
    const head = git(repo, "rev-parse", "--short", "main").trim();
    expect(res.stdout).toContain(`uncommitted changes in ${repo} are not seen by the agent: it works on the last commit, ${head} (main)\n`);
    expect(res.stdout).toMatch(/replayed run \(no model was called\)/);
    // One progress line per step: the model call, the tool with its arguments, a short result.
    expect(res.stdout).toMatch(
      /^· model call 1\n· write_file \{"file_path":"\/workspace\/CONTRIBUTING.md".*\n  ↳ .+\n· model call 2\n· commit_and_push \{"message":"Add CONTRIBUTING.md"\}\n  ↳ .+\n/m,
    );
    // --record writes the run back as a replay script: the same turns that drove it.
    expect(res.stdout).toContain(`recorded: ${recorded} (play it back with --model replay:${recorded})`);
    expect((JSON.parse(readFileSync(recorded, "utf8")) as Array<{ tool_calls?: Array<{ name: string; args: unknown }> }>).map((t) => t.tool_calls?.map((c) => [c.name, c.args]))).toEqual(
      (JSON.parse(readFileSync(script, "utf8")) as Array<{ tool_calls: Array<{ name: string; args: unknown }> }>).map((t) => t.tool_calls.map((c) => [c.name, c.args])),
    );
    const transcriptPath = /^transcript: (.+)$/m.exec(res.stdout)![1]!;
    expect(transcriptPath.startsWith(join(data, "transcripts"))).toBe(true);
    const transcript = JSON.parse(readFileSync(transcriptPath, "utf8")) as Array<{ type: string; tool_calls?: Array<{ name: string }> }>;
    expect(transcript[0]!.type).toBe("human");
    expect(transcript.flatMap((m) => m.tool_calls ?? []).map((c) => c.name)).toEqual(["write_file", "commit_and_push", "reply_to_user", "confirming_completion"]);
    expect(git(repo, "show", `${branch}:CONTRIBUTING.md`)).toBe("# Contributing\n");
    expect(git(repo, "status", "--porcelain")).toBe("?? notes.txt\n");

    // Every run is recorded: `runs ls` on the same installation (its embedded Redis) lists it, source `local`.
    const runId = /^run: (j__local__[0-9a-f-]{36}) /m.exec(res.stdout)?.[1];
    expect(runId).toBeDefined();
    const ls = spawnSync(process.execPath, [join(ROOT, "bin/open-swe.mjs"), "runs", "ls", "--json"], {
      cwd: mkdtempSync(join(tmpdir(), "cwd-")),
      env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), DATA_DIR: data },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(ls.stderr).toBe("");
    const rows = JSON.parse(ls.stdout) as Array<Record<string, unknown>>;
    expect(rows).toEqual([expect.objectContaining({ id: runId, repo: expect.stringMatching(/^local\/open-swe-local-/), source: "local", trigger: "local", outcome: "completed" })]);
  });

  it.each([
    ["./no-such-repo", "open-swe: no such directory: ./no-such-repo"],
    ["../etc", "open-swe: no such directory: ../etc"],
    ["just-a-word", 'open-swe: "just-a-word" is not a repository name: expected owner/name (the owner: letters, digits and -, the name: letters, digits and _ . -), or a path to a git working copy'],
  ])("--repo %s is refused in one line, nothing cloned", (arg, line) => {
    const res = spawnSync(process.execPath, [join(ROOT, "bin/open-swe.mjs"), "run", "--repo", arg, "a task"], {
      cwd: mkdtempSync(join(tmpdir(), "cwd-")),
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), DATA_DIR: mkdtempSync(join(tmpdir(), "d-")), GIT_REMOTE_TEMPLATE: "http://127.0.0.1:1/{owner}/{repo}.git" },
    });
    expect([res.status, res.stderr.trim()]).toEqual([2, line]);
  });

  it("a plain folder is not a git repository, in one line", () => {
    const dir = mkdtempSync(join(tmpdir(), "plain-"));
    const res = spawnSync(process.execPath, [join(ROOT, "bin/open-swe.mjs"), "run", "--repo", dir, "a task"], {
      cwd: mkdtempSync(join(tmpdir(), "cwd-")),
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), DATA_DIR: mkdtempSync(join(tmpdir(), "d-")) },
    });
    expect([res.status, res.stderr.trim()]).toEqual([2, `open-swe: ${dir} is not a git repository (run \`git init\` and commit there, or pass owner/name)`]);
  });

  it("refuses a bad invocation with the usage line", () => {
    const res = spawnSync(process.execPath, [join(ROOT, "bin/open-swe.mjs"), "run", "--repo"], {
      cwd: mkdtempSync(join(tmpdir(), "cwd-")),
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", HOME: tmpdir() },
    });
    expect(res.status).toBe(2);
    expect(res.stderr).toBe("open-swe: --repo needs a value (see open-swe run --help)\n");
  });
});
