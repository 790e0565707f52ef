import { spawn } from "node:child_process";
import { chownSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/commands.js";
import { ROOT } from "../helpers/paths.js";
import { execFileSync } from "node:child_process";

const BIN = join(ROOT, "bin/open-swe.mjs");

interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `open-swe …` for real, in a fresh working directory, with only PATH and HOME (and `env`). */
function cli(args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], {
      cwd: mkdtempSync(join(tmpdir(), "cli-cwd-")),
      env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], { cwd, encoding: "utf8" });
function committedRepo(): string {
  const repo = mkdtempSync(join(tmpdir(), "cli-repo-"));
  git(repo, "init", "-q", "-b", "main");
  writeFileSync(join(repo, "README.md"), "# hi\n");
  git(repo, "add", ".");
  git(repo, "commit", "-q", "-m", "init");
  return repo;
}

/** One line on stderr, exit 2 (refused; 1: failed while running), nothing on stdout, no stack frame. */
function refusedInOneLine(r: Result, status: 1 | 2 = 2): string {
  expect(r.status, r.stderr).toBe(status);
  expect(r.stderr).toMatch(/^open-swe: [^\n]+\n$/);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return r.stderr.trim();
}

const GROUP_WORDS = [
  ...new Set(
    Object.keys(COMMANDS)
      .filter((k) => k.includes(" "))
      .map((k) => k.split(" ")[0]!),
  ),
];

describe("open-swe CLI (spawned)", () => {
  it("help and every <command> --help print usage on stdout and exit 0, without running anything", async () => {
    const data = mkdtempSync(join(tmpdir(), "cli-data-"));
    const lines = [
      ["help"],
      ["--help"],
      ["-h"],
      ...Object.keys(COMMANDS).map((k) => [...k.split(" "), "--help"]),
      ...GROUP_WORDS.map((g) => [g]),
      ["settings", "help"],
      ["run", "-h", "--repo", "x", "task"],
    ];
    const results = await Promise.all(lines.map((args) => cli(args, { DATA_DIR: data, PORT: "1" })));
    results.forEach((r, i) => {
      expect([lines[i]!.join(" "), r.status, r.stderr]).toEqual([lines[i]!.join(" "), 0, ""]);
      expect(r.stdout).toMatch(/^usage:/);
    });
    expect(results[0]!.stdout).toContain("web | worker | all");
    // No server started, no embedded Redis brought up for `runs ls --help`.
    expect(readdirSync(data)).toEqual([]);
  }, 120_000);

  it("`help` and `<command> --help` load only the CLI's own small modules: not the app, Probot, BullMQ or LangChain", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cli-hook-"));
    const log = join(dir, "loaded.txt");
    // A module-resolution hook that writes down every module the process loads.
    writeFileSync(
      join(dir, "hooks.mjs"),
      `import { appendFileSync } from "node:fs";\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(${JSON.stringify(log)}, r.url + "\\n"); return r; }\n`,
    );
    writeFileSync(join(dir, "register.mjs"), `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(dir, "hooks.mjs")).href)});\n`);
    for (const args of [["help"], ["--version"], ["web", "--help"], ["runs", "ls", "--help"], ["settings", "--help"], ["run", "--help"]]) {
      writeFileSync(log, "");
      const r = await cli(args, {}, ["--import", pathToFileURL(join(dir, "register.mjs")).href]);
      expect(r.status, r.stderr).toBe(0);
      const loaded = readFileSync(log, "utf8")
        .split("\n")
        .filter((u) => u.startsWith(pathToFileURL(ROOT).href));
      // bin/open-swe.mjs runs src/ through tsx, or dist/ when a build is up to date.
      expect(loaded.some((u) => u.endsWith("/src/cli.ts") || u.endsWith("/dist/src/cli.js"))).toBe(true);
      expect(loaded.filter((u) => /\/src\/main\.[jt]s$|node_modules\/(probot|bullmq|ioredis|@langchain|deepagents|zod)\//.test(u))).toEqual([]);
    }
  }, 60_000);

  it("--version and -v print the version (package.json's) and the commit when OPEN_SWE_COMMIT names it, exit 0", async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    const data = mkdtempSync(join(tmpdir(), "cli-data-"));
    const [long, short] = await Promise.all([cli(["--version"], { DATA_DIR: data, OPEN_SWE_COMMIT: "0123456789abcdef" }), cli(["-v"], { DATA_DIR: data, OPEN_SWE_COMMIT: "0123456789abcdef" })]);
    for (const r of [long, short]) expect([r.status, r.stderr, r.stdout]).toEqual([0, "", `open-swe ${version} (commit 0123456789ab, node ${process.versions.node})\n`]);
    expect(readdirSync(data)).toEqual([]);
  }, 60_000);

  it("an unknown option is refused in one line naming it, before anything runs", async () => {
    const data = mkdtempSync(join(tmpdir(), "cli-data-"));
    const repo = committedRepo();
    const cases: Array<[string[], RegExp]> = [
      [["run", "--repo", repo, "--modle", "claude-opus-4-1", "fix it"], /^open-swe: unknown option --modle for `open-swe run` \(it takes --repo, --model/],
      [["web", "--port", "3000"], /^open-swe: unknown option --port for `open-swe web`/],
      [["all", "--verbose"], /^open-swe: unknown option --verbose for `open-swe all`/],
      [["--modle"], /^open-swe: unknown option --modle/],
      [["runs", "ls", "--limt", "3", "--x"], /^open-swe: unknown options --limt, --x for `open-swe runs ls`/],
      [["settings", "repos", "list", "--json"], /^open-swe: unknown option --json for `open-swe settings`/],
      [["run", "--repo"], /^open-swe: --repo needs a value/],
      [["run", "--verbose=yes", "--repo", repo, "x"], /^open-swe: --verbose takes no value/],
      [["analyze"], /^open-swe: `open-swe analyze` is missing an argument/],
      [["runs", "show", "a", "b"], /^open-swe: `open-swe runs show` takes at most 1 argument, got "b"/],
      [["nope"], /^open-swe: unknown command "nope"/],
      [["jobs", "nope"], /^open-swe: unknown command "open-swe jobs nope"/],
      [["bench", "nope"], /^open-swe: unknown benchmark "nope": one of intake,/],
    ];
    const results = await Promise.all(cases.map(([args]) => cli(args, { DATA_DIR: data, PORT: "0", HOST: "127.0.0.1" })));
    results.forEach((r, i) => {
      expect(refusedInOneLine(r)).toMatch(cases[i]![1]);
    });
    expect(readdirSync(data)).toEqual([]);
  }, 120_000);

  it("a failing run is one line: exit 2 for no model key, a missing or bad replay file; exit 1 for an unclonable repository", async () => {
    const repo = committedRepo();
    const bad = join(mkdtempSync(join(tmpdir(), "cli-replay-")), "bad.json");
    writeFileSync(bad, "{not json");
    const env = () => ({ DATA_DIR: mkdtempSync(join(tmpdir(), "cli-data-")) });
    const cases: Array<[string[], Record<string, string>, RegExp, (1 | 2)?]> = [
      [["run", "--repo", repo, "fix it"], {}, /^open-swe: model anthropic:[\w.-]+ needs ANTHROPIC_API_KEY, which is not set$/],
      [
        ["run", "--repo", "octo/hello", "fix it"],
        { GIT_REMOTE_TEMPLATE: "http://127.0.0.1:1/{owner}/{repo}.git" },
        /^open-swe: git clone failed \(exit 128\): .*127\.0\.0\.1.*Couldn't connect to server$/,
        1,
      ],
      [["run", "--repo", repo, "--model", "replay:/missing.json", "fix it"], {}, /^open-swe: cannot read replay script \/missing\.json: ENOENT/],
      [["run", "--repo", repo, "--model", `replay:${bad}`, "fix it"], {}, /is not JSON/],
    ];
    const results = await Promise.all(cases.map(([args, extra]) => cli(args, { ...env(), ...extra })));
    results.forEach((r, i) => {
      expect(refusedInOneLine(r, cases[i]![3])).toMatch(cases[i]![2]);
    });
  }, 120_000);

  it("a working copy owned by another user: git's own reason (safe.directory), not 'not a git repository'", async () => {
    const repo = committedRepo();
    const chownTree = (dir: string) => {
      chownSync(dir, 4242, 4242);
      for (const e of readdirSync(dir, { withFileTypes: true })) (e.isDirectory() ? chownTree : (p: string) => chownSync(p, 4242, 4242))(join(dir, e.name));
    };
    chownTree(repo);
    for (const args of [
      ["run", "--repo", repo, "fix it"],
      ["agents", "list", "--repo", repo],
    ]) {
      const line = refusedInOneLine(await cli(args, { DATA_DIR: mkdtempSync(join(tmpdir(), "cli-data-")) }));
      expect(line).toBe(
        `open-swe: ${repo} is owned by another user and git refuses to read it ("dubious ownership", git's safe.directory check): run open-swe as the repository's owner, or pass owner/name`,
      );
    }
  }, 60_000);

  it("bad configuration stops start-up in one line, never echoing a secret; unknown models are refused in settings", async () => {
    const base = { PORT: "0", HOST: "127.0.0.1", NO_SMEE_SETUP: "true" };
    const cases: Array<[string[], Record<string, string>, string | RegExp]> = [
      [["all"], { GHE_HOST: "https://github.example.com" }, 'open-swe: invalid GHE_HOST: a host name like github.example.com (no https://, no path) (got "https://github.example.com")'],
      [["web"], { APP_URL: "localhost:3000" }, 'open-swe: invalid APP_URL: an http(s) URL with its scheme, e.g. https://open-swe.example.com (got "localhost:3000")'],
      [["all"], { OPEN_SWE_MODEL: "replay:/missing.json" }, /^open-swe: invalid OPEN_SWE_MODEL: cannot read replay script \/missing\.json: ENOENT/],
      [["worker"], { OPEN_SWE_MODEL: "gpt-4o" }, /^open-swe: invalid OPEN_SWE_MODEL: unknown model "gpt-4o": one of claude-/],
      [["all"], { METRICS_TOKEN: "hunter2" }, "open-swe: invalid METRICS_TOKEN: at least 16 characters (a value of 7 characters, not shown)"],
      [["run", "--repo", "octo/hello", "--model", "claude-opuss", "fix it"], {}, /^open-swe: --model: unknown model "claude-opuss": one of /],
      [["settings", "team-model", "set", "agent", "gpt-4o"], {}, /^open-swe: unknown model "gpt-4o": one of .*, or openai:<name> for an OpenAI-compatible endpoint$/],
      [["settings", "profile", "set", "octocat", "model=claude-sonet-4-6"], {}, /^open-swe: unknown model "claude-sonet-4-6": one of /],
    ];
    const results = await Promise.all(cases.map(([args, env]) => cli(args, { ...base, DATA_DIR: mkdtempSync(join(tmpdir(), "cli-data-")), ...env })));
    results.forEach((r, i) => {
      const line = refusedInOneLine(r);
      if (typeof cases[i]![2] === "string") expect(line).toBe(cases[i]![2]);
      else expect(line).toMatch(cases[i]![2]);
    });
    const ok = await cli(["settings", "team-model", "set", "agent", "openai:gpt-4o"], { DATA_DIR: mkdtempSync(join(tmpdir(), "cli-data-")) });
    expect([ok.status, JSON.parse(ok.stdout)]).toEqual([0, expect.objectContaining({ agent: "openai:gpt-4o" })]);
  }, 120_000);
});
