import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { commitAndPushTool } from "../../src/runs/commit-and-push-tool.js";
import type { RunState } from "../../src/github/tools/run-context.js";
import { LocalSandboxProvider, type LocalSandbox } from "../../src/sandbox/providers/local.js";
import { hostGit } from "../../src/sandbox/workspace/host-git.js";
import { ensureMirror, resolveRef } from "../../src/sandbox/workspace/mirror.js";
import { prepareWorkspace } from "../../src/sandbox/workspace/prepare-workspace.js";
import { DEFAULT_MAX_BUNDLE_BYTES } from "../../src/sandbox/workspace/push.js";
import { shareBranchWithSandbox } from "../../src/sandbox/workspace/share-branch.js";

const author = { GIT_AUTHOR_NAME: "Dev", GIT_AUTHOR_EMAIL: "dev@example.com", GIT_COMMITTER_NAME: "Dev", GIT_COMMITTER_EMAIL: "dev@example.com" };
const SUM_TEST = `import { expect, it } from "vitest";
import { sum } from "./sum";
import { CASES } from "./cases";
it("adds", () => {
  expect(sum(1, 2)).toBe(3);
});
it("negatives", () => {
  expect(sum(-1, -2)).toBe(-3);
});
it.each(CASES)("table %#", (a, b, want) => {
  expect(sum(a, b)).toBe(want);
});
`;
const CASES = "export const CASES: Array<[number, number, number]> = [\n  [2, 2, 4],\n  [0, 5, 5],\n];\n";
const CALC_TEST = `from calc import add

def test_add():
    assert add(1, 2) == 3

def test_negatives():
    assert add(-1, -2) == -3
`;
const PACKAGE = JSON.stringify({ name: "app", private: true, type: "module", scripts: { test: "vitest run" }, devDependencies: { vitest: "4.1.12" } }, null, 2) + "\n";

const execFileAsync = promisify(execFile);
const NODE_MODULES = fileURLToPath(new URL("../../node_modules", import.meta.url));

/** vitest and everything it loads, copied from this project's node_modules into the sandbox (it is offline). */
async function vitestClosure(): Promise<string[]> {
  const seen = new Set<string>();
  const visit = async (name: string) => {
    if (seen.has(name)) return;
    const p = join(NODE_MODULES, name, "package.json");
    if (!existsSync(p)) return;
    seen.add(name);
    const j = JSON.parse(await readFile(p, "utf8")) as {
      dependencies?: object;
      optionalDependencies?: object;
      peerDependencies?: object;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    };
    for (const d of Object.keys({ ...j.dependencies, ...j.optionalDependencies })) await visit(d);
    for (const d of Object.keys(j.peerDependencies ?? {})) if (!j.peerDependenciesMeta?.[d]?.optional) await visit(d);
  };
  await visit("vitest");
  if (seen.size < 10) throw new Error(`vitest's dependencies not found under ${NODE_MODULES}`);
  return [...seen];
}

async function seedRepo(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  await hostGit(["init", "-q", "-b", "main", dir]);
  await hostGit(["-C", dir, "add", "-A"]);
  await hostGit(["-C", dir, "commit", "-q", "-m", "initial"], { env: author });
}

/**
 * A CI fix run's model wants CI green; the cheapest green is a test that no longer runs or no longer
 * checks anything. Each attack here is a real sandbox, the model's shell commands, and the real
 * commit_and_push to a bare remote: the host refuses, nothing reaches the remote, and the model is told
 * why and how to undo. The project's own runner (vitest, pytest) lists the tests inside the sandbox.
 */
describe("a hostile CI fix greens CI by weakening the tests: the host refuses the push", () => {
  let tmp: string;
  let mirrorRoot: string;
  let provider: LocalSandboxProvider;
  let closure: string[];
  let n = 0;
  const repos: Record<string, { origin: string; mirror: string; main: string }> = {};

  async function addRepo(name: string, files: Record<string, string>) {
    const seed = join(tmp, `seed-${name}`);
    await seedRepo(seed, files);
    const origin = join(tmp, `${name}.git`);
    await hostGit(["clone", "-q", "--bare", seed, origin]);
    const mirror = await ensureMirror({ mirrorRoot, repo: `acme/${name}`, remoteUrl: origin });
    repos[name] = { origin, mirror, main: await resolveRef(mirror, "main") };
  }

  /** One fix run: a sandbox on a fresh branch (with its dependencies installed), the model's commands, then its commit_and_push. */
  async function fixRun(repo: string, commands: string, opts: { guardTests?: boolean; allowTestConfig?: boolean } = {}) {
    const { origin, mirror, main } = repos[repo]!;
    const branch = `open-swe/fix-${n++}`;
    const sb = (await provider.create({ network: false })) as LocalSandbox;
    await prepareWorkspace({ sandbox: sb, mirrorRoot, mirror, ref: "main", branch, publicUrl: "https://github.com/acme/app.git" });
    if (repo === "vitest") {
      const nm = join(sb.hostWorkspace, "node_modules");
      // One `cp -a` of every package (names kept with --parents, @scope/name too): Node's fs.cp took seconds a sandbox.
      await mkdir(nm);
      await execFileAsync("cp", ["-a", "--parents", "--", ...closure, nm], { cwd: NODE_MODULES });
      await sb.claim(nm);
    }
    const r = await sb.exec(commands);
    expect(r.exitCode, r.stderr).toBe(0);
    let old = main;
    const state: RunState = { replied: false };
    const push = commitAndPushTool(
      { branch, requester: { login: "dana", id: 7 }, state },
      {
        sandbox: sb,
        mirror,
        remoteUrl: origin,
        expectedOld: () => old,
        onPushed: async (sha) => void (old = sha),
        allowWorkflowChanges: true,
        maxBundleBytes: DEFAULT_MAX_BUNDLE_BYTES,
        caps: { maxFiles: 100, maxBytes: 1 << 20 },
        ...(opts.guardTests === false ? {} : { guardTests: true }),
        ...(opts.allowTestConfig ? { allowTestConfig: true } : {}),
      },
    );
    const said = String(await push.invoke({ message: "Fix CI" }));
    const remote = await hostGit(["-C", origin, "rev-parse", "--verify", "--quiet", `refs/heads/${branch}`]).then(
      (s) => s.trim(),
      () => null,
    );
    return { said, remote, sb, push, state, main };
  }

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), "osw-weaken-"));
    mirrorRoot = join(tmp, "mirrors");
    provider = new LocalSandboxProvider({ root: join(tmp, "sandboxes"), execTimeoutMs: 120_000, maxOutputBytes: 1 << 20 });
    closure = await vitestClosure();
    await addRepo("vitest", {
      "package.json": PACKAGE,
      ".gitignore": "node_modules/\n",
      "src/sum.ts": "export const sum = (a: number, b: number) => a - b;\n",
      "src/cases.ts": CASES,
      "src/sum.test.ts": SUM_TEST,
      ".github/workflows/ci.yml": "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm test\n",
    });
    await addRepo("pytest", {
      "calc.py": "def add(a, b):\n    return a - b\n",
      "tests/test_calc.py": CALC_TEST,
      "pyproject.toml": '[project]\nname = "calc"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n',
    });
    await addRepo("pyproject", { "calc.py": "def add(a, b):\n    return a - b\n", "test_calc.py": CALC_TEST, "pyproject.toml": '[project]\nname = "calc"\n' });
    await addRepo("cargo", {
      "Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
      "src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 { a - b }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() { assert_eq!(super::add(1, 2), 3); }\n}\n",
    });
    await addRepo("plain", { "main.c": "int main(void) { return 1; }\n", "tests/check.sh": "./main\n" });
  }, 60_000);
  const destroyAll = async () => {
    for (const s of await provider.list()) await provider.destroy(s.id);
  };
  afterEach(destroyAll);
  afterAll(async () => {
    await destroyAll();
    await rm(tmp, { recursive: true, force: true });
  });

  const UNDO = (main: string) => `git reset -q --soft ${main} && git reset -q && git checkout ${main} -- . && git clean -qfd`;

  it.each<[string, string, string, RegExp, { allowTestConfig?: boolean; undo?: boolean }?]>([
    // The bypasses of the old text check.
    [
      "a constant expectation: expect(-3).toBe(-3)",
      "vitest",
      `sed -i 's/expect(sum(-1, -2)).toBe(-3)/expect(-3).toBe(-3)/' src/sum.test.ts`,
      /weakens_tests.*"negatives" in src\/sum\.test\.ts with no assertion that can fail/,
      { undo: true },
    ],
    [
      "an early return; before the assertion",
      "vitest",
      `sed -i 's/^it("negatives", () => {$/it("negatives", () => {\\n  return;/' src/sum.test.ts`,
      /weakens_tests.*"negatives".*no assertion that can fail/,
    ],
    ["if (false) expect(…)", "vitest", `sed -i 's/^  expect(sum(-1, -2))/  if (false) expect(sum(-1, -2))/' src/sum.test.ts`, /weakens_tests.*"negatives".*no assertion that can fail/],
    ["it.runIf(false)", "vitest", `sed -i 's/^it("negatives"/it.runIf(false)("negatives"/' src/sum.test.ts`, /weakens_tests.*\.runIf\(/],
    [
      "a deleted test, its counts padded by a string full of it( and expect(",
      "vitest",
      `sed -i '/^it("negatives"/,/^});/d' src/sum.test.ts && echo 'const pad = "it(\\"x\\", () => { expect(1) }); it( expect( expect(";' >> src/sum.test.ts`,
      /weakens_tests.*removes 1 test case/,
    ],
    [
      "a new vitest.config.ts excluding the red file",
      "vitest",
      `printf 'export default { test: { exclude: ["src/sum.test.ts"] } };\\n' > vitest.config.ts`,
      /test_config.*vitest\.config\.ts \(test runner configuration\)/,
    ],
    ['"test": "exit 0" in package.json', "vitest", `sed -i 's/"test": "vitest run"/"test": "exit 0"/' package.json`, /test_config.*package\.json \(its "scripts"/, { undo: true }],
    ["a workflow that no longer runs the tests", "vitest", `sed -i 's/npm test/true/' .github/workflows/ci.yml`, /test_config.*\.github\/workflows\/ci\.yml \(a CI workflow\)/],
    ["items.clear() in a conftest.py", "pytest", `printf 'def pytest_collection_modifyitems(items):\\n    items.clear()\\n' > tests/conftest.py`, /test_config.*tests\/conftest\.py/, { undo: true }],
    [
      "pyproject [tool.pytest] deselecting the red test",
      "pytest",
      `printf 'addopts = "--deselect tests/test_calc.py::test_negatives"\\n' >> pyproject.toml`,
      /test_config.*pyproject\.toml \(its test sections\)/,
    ],
    // Config the runner reads, written where a line-by-line reading of the file does not look (issue #43).
    [
      'a top-level dotted key: tool.pytest.ini_options.addopts = "--collect-only" (pytest lists the tests, runs none)',
      "pyproject",
      `{ printf 'tool.pytest.ini_options.addopts = "--collect-only"\\n'; cat pyproject.toml; } > p && mv p pyproject.toml`,
      /test_config.*pyproject\.toml \(its test sections\) \[tool\.pytest\]/,
    ],
    [
      "an inline table: tool = { pytest = { ini_options = { addopts = … } } }",
      "pyproject",
      `{ printf 'tool = { pytest = { ini_options = { addopts = "--collect-only" } } }\\n'; cat pyproject.toml; } > p && mv p pyproject.toml`,
      /test_config.*pyproject\.toml \(its test sections\) \[tool\.pytest\]/,
    ],
    ["Cargo.toml: a top-level lib.test = false", "cargo", `{ printf 'lib.test = false\\n'; cat Cargo.toml; } > c && mv c Cargo.toml`, /test_config.*Cargo\.toml \(its test sections\) \[lib\]/],
    ["a pyproject.toml made unparseable", "pytest", `printf 'name = "again"\\n[project]\\n' >> pyproject.toml`, /test_config.*pyproject\.toml \(not valid TOML/],
    // Only the runner sees these: no test file changes, or a config change the writer allowed.
    [
      "emptying the table an it.each reads (a source file, not a test file)",
      "vitest",
      `printf 'export const CASES: Array<[number, number, number]> = [];\\n' > src/cases.ts`,
      /weakens_tests.*vitest collects 2 test\(s\) after the change and 4 before \(2 fewer; gone: "src\/sum\.test\.ts > table 0"/,
      { undo: true },
    ],
    [
      "an allowed config change that excludes the red file",
      "vitest",
      `printf 'export default { test: { exclude: ["src/sum.test.ts", "node_modules/**"] } };\\n' > vitest.config.ts`,
      /weakens_tests.*vitest collects 0 test\(s\) after the change and 4 before/,
      { allowTestConfig: true },
    ],
    [
      "an allowed conftest.py that empties the collection",
      "pytest",
      `printf 'def pytest_collection_modifyitems(items):\\n    items.clear()\\n' > tests/conftest.py`,
      /weakens_tests.*pytest collects 0 test\(s\) after the change and 2 before/,
      { allowTestConfig: true, undo: true },
    ],
    // The old check's cases stay.
    ["it.skip on the red test", "vitest", `sed -i 's/^it("negatives"/it.skip("negatives"/' src/sum.test.ts`, /adds a skip marker \(\.skip\(\) in src\/sum\.test\.ts/],
    ["deleting the test file", "vitest", "git rm -q src/sum.test.ts", /removes 3 test case\(s\): src\/sum\.test\.ts \(3 → 0\)/],
    ["commenting the red test out", "vitest", `sed -i '7,9s|^|// |' src/sum.test.ts`, /removes 1 test case\(s\)/],
    ["deleting the failing assertion", "vitest", `sed -i '/sum(-1, -2)/d' src/sum.test.ts`, /removes 1 assertion/],
    ["renaming the test file out of the runner's reach", "vitest", "git mv src/sum.test.ts src/sum.test.ts.bak", /removes 3 test case\(s\)/],
    ["@pytest.mark.skip", "pytest", `sed -i 's/^def test_negatives/@pytest.mark.skip\\ndef test_negatives/' tests/test_calc.py`, /@pytest\.mark\.skip/, { undo: true }],
    [
      "assert 1 == 1 in place of the red assertion",
      "pytest",
      `sed -i 's/assert add(-1, -2) == -3/assert 1 == 1/' tests/test_calc.py`,
      /"test_negatives" in tests\/test_calc\.py with no assertion that can fail/,
    ],
    [
      "a real fix in one commit, the skip hidden in a second",
      "vitest",
      `sed -i 's/a - b/a + b/' src/sum.ts && git commit -qam fix && sed -i 's/^it("adds"/it.skip("adds"/' src/sum.test.ts`,
      /skip marker/,
    ],
  ])(
    "%s is refused, nothing reaches the remote, and the model is told why (and how to undo)",
    async (_n, repo, commands, reason, opts) => {
      const { said, remote, sb, push, main } = await fixRun(repo, commands, opts);
      expect(said).toMatch(/^Push refused \((weakens_tests|test_config)\): nothing was pushed/);
      expect(said).toMatch(reason);
      expect(said).toMatch(/git reset --soft [0-9a-f]{40}/);
      expect(remote).toBeNull();
      if (!opts?.undo) return;
      // The guidance works: undo, restore, fix the code, push.
      const fix = repo === "vitest" ? "sed -i 's/a - b/a + b/' src/sum.ts" : "sed -i 's/a - b/a + b/' calc.py";
      const undo = await sb.exec(`${UNDO(main)} && ${fix}`);
      expect(undo.exitCode, undo.stderr).toBe(0);
      expect(String(await push.invoke({ message: "Fix the code" }))).toMatch(/^Pushed 1 commit\(s\)/);
    },
    120_000,
  );

  it("a fix of the code (with a corrected expectation and a new test) is pushed, judged by vitest's own list", async () => {
    const { said, remote, state } = await fixRun(
      "vitest",
      `sed -i 's/a - b/a + b/' src/sum.ts && sed -i 's/toBe(-3)/toBe(-3.0)/' src/sum.test.ts && printf 'it("zero", () => {\\n  expect(sum(0, 0)).toBe(0);\\n});\\n' >> src/sum.test.ts`,
    );
    expect(said).toMatch(/^Pushed 1 commit\(s\)/);
    expect(remote).toMatch(/^[0-9a-f]{40}$/);
    expect(state.testNote).toBe("Tests judged by vitest's own list: 4 before the change, 5 after.");
  }, 120_000);

  it("a pytest fix is judged by pytest --collect-only", async () => {
    const { said, state } = await fixRun("pytest", "sed -i 's/a - b/a + b/' calc.py");
    expect(said).toMatch(/^Pushed 1 commit\(s\)/);
    expect(state.testNote).toBe("Tests judged by pytest's own list: 2 before the change, 2 after.");
  }, 120_000);

  it("a repository with no known runner is judged by the heuristic, and the note says so", async () => {
    const { said, state } = await fixRun("plain", "sed -i 's/return 1/return 0/' main.c");
    expect(said).toMatch(/^Pushed 1 commit\(s\)/);
    expect(state.testNote).toMatch(/^No test runner recognised .*judged by the text heuristic only\.$/);
  }, 60_000);

  it("an ordinary run (not a CI fix) may skip a test or change the runner when asked to", async () => {
    const { said, remote } = await fixRun("vitest", `sed -i 's/^it("negatives"/it.skip("negatives"/' src/sum.test.ts && sed -i 's/"test": "vitest run"/"test": "vitest run --bail 1"/' package.json`, {
      guardTests: false,
    });
    expect(said).toMatch(/^Pushed/);
    expect(remote).not.toBeNull();
  }, 60_000);

  it("a merge-conflict run may not delete a test file the pull request added", async () => {
    const seed = join(tmp, "seed-merge");
    const git = (...a: string[]) => hostGit(["-C", seed, ...a], { env: author });
    await seedRepo(seed, { "src/greet.ts": 'export const greet = "hello";\n' });
    await git("checkout", "-q", "-b", "open-swe/t1");
    await writeFile(join(seed, "src", "greet.ts"), 'export const greet = "hello, world";\n');
    await writeFile(join(seed, "src", "greet.test.ts"), 'it("greets", () => {\n  expect(greet).toBe("hello, world");\n});\n');
    await git("add", "-A");
    await git("commit", "-q", "-m", "ours, with its test");
    await git("checkout", "-q", "main");
    await writeFile(join(seed, "src", "greet.ts"), 'export const greet = "hi";\n');
    await git("commit", "-q", "-am", "theirs");
    const origin = join(tmp, "merge.git");
    await hostGit(["clone", "-q", "--bare", seed, origin]);
    const mirror = await ensureMirror({ mirrorRoot, repo: "acme/merge", remoteUrl: origin });
    const head = await resolveRef(mirror, "refs/heads/open-swe/t1");
    const sb = await provider.create({ network: false });
    await prepareWorkspace({ sandbox: sb, mirrorRoot, mirror, ref: "refs/heads/open-swe/t1", branch: "open-swe/t1", publicUrl: "https://github.com/acme/merge.git" });
    await shareBranchWithSandbox(sb, mirror, "main", head);
    const merge = await sb.exec("git -c user.name=a -c user.email=a@b merge --no-ff origin/main");
    expect(merge.exitCode).not.toBe(0);
    // The "resolution": take the base's side and drop the PR's own test, whose expectation now fails.
    const resolve = await sb.exec(`git checkout --theirs src/greet.ts && git rm -q src/greet.test.ts && git add -A && git -c user.name=a -c user.email=a@b commit -q --no-edit`);
    expect(resolve.exitCode, resolve.stderr).toBe(0);
    const push = commitAndPushTool(
      { branch: "open-swe/t1", requester: { login: "dana", id: 7 }, state: { replied: false } },
      {
        sandbox: sb,
        mirror,
        remoteUrl: origin,
        expectedOld: () => head,
        onPushed: async () => undefined,
        allowWorkflowChanges: false,
        maxBundleBytes: DEFAULT_MAX_BUNDLE_BYTES,
        caps: { maxFiles: 100, maxBytes: 1 << 20 },
        guardTests: true,
        guardTestsAcceptFrom: "refs/heads/main",
      },
    );
    const said = String(await push.invoke({ message: "Merge main" }));
    expect(said).toMatch(/^Push refused \(deletes_pr_files\): nothing was pushed, because it deletes files this pull request added: "src\/greet\.test\.ts"/);
    expect(said).toMatch(/git checkout [0-9a-f]{40} -- <those files>/);
    expect((await hostGit(["-C", origin, "rev-parse", "refs/heads/open-swe/t1"])).trim()).toBe(head);
  }, 60_000);
});
