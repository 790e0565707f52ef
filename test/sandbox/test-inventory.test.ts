import { describe, expect, it } from "vitest";
import { testConfigChange, testConfigRefusal } from "../../src/sandbox/workspace/test-config-guard.js";
import { hollowedTests } from "../../src/sandbox/workspace/test-bodies.js";
import { detectTestRunner, inventoryRefusal, lostTests, parseInventory, type RepoFacts } from "../../src/sandbox/workspace/test-inventory.js";

const pkg = (o: object) => JSON.stringify(o, null, 2);
const facts = (over: Partial<RepoFacts>): RepoFacts => ({ rootFiles: new Set(), packageJson: null, pythonConfig: null, hasPythonTests: false, ...over });

describe("detectTestRunner (pure)", () => {
  it.each<[string, RepoFacts, string | null]>([
    ["vitest in devDependencies", facts({ rootFiles: new Set(["package.json"]), packageJson: pkg({ devDependencies: { vitest: "4" } }) }), "vitest"],
    ["a vitest.config.ts", facts({ rootFiles: new Set(["package.json", "vitest.config.ts"]), packageJson: pkg({}) }), "vitest"],
    [
      "jest in the test script wins over a vitest dependency",
      facts({ rootFiles: new Set(["package.json"]), packageJson: pkg({ scripts: { test: "jest" }, devDependencies: { vitest: "4" } }) }),
      "jest",
    ],
    ["jest in devDependencies", facts({ rootFiles: new Set(["package.json"]), packageJson: pkg({ devDependencies: { jest: "29" } }) }), "jest"],
    ["pytest.ini", facts({ rootFiles: new Set(["pytest.ini"]) }), "pytest"],
    ["pyproject [tool.pytest.ini_options]", facts({ rootFiles: new Set(["pyproject.toml"]), pythonConfig: "[tool.pytest.ini_options]\n" }), "pytest"],
    ["test_*.py files alone", facts({ hasPythonTests: true }), "pytest"],
    ["go.mod", facts({ rootFiles: new Set(["go.mod"]) }), "go"],
    ["Cargo.toml", facts({ rootFiles: new Set(["Cargo.toml"]) }), "cargo"],
    ["a Makefile project", facts({ rootFiles: new Set(["Makefile", "main.c"]) }), null],
    ["an unreadable package.json, nothing else", facts({ rootFiles: new Set(["package.json"]), packageJson: "{" }), null],
  ])("%s → %s", (_n, f, want) => expect(detectTestRunner(f)).toBe(want));
});

describe("parseInventory (pure)", () => {
  it.each<[string, Parameters<typeof parseInventory>, string[] | null]>([
    ["vitest list --json, paths made relative", ["vitest", '[{"name":"grp > one","file":"/tmp/x/src/a.test.ts"}]', "/tmp/x"], ["src/a.test.ts > grp > one"]],
    ["vitest: not JSON", ["vitest", "Error: cannot find module"], null],
    ["jest --json", ["jest", '{"testResults":[{"name":"/tmp/x/a.test.js","assertionResults":[{"fullName":"a b"},{"fullName":"a c"}]}]}', "/tmp/x"], ["a.test.js > a b", "a.test.js > a c"]],
    ["jest: no testResults", ["jest", "{}"], null],
    ["pytest --collect-only -q", ["pytest", "tests/test_a.py::test_x\ntests/test_a.py::test_y[1]\n\n2 tests collected in 0.01s\n"], ["tests/test_a.py::test_x", "tests/test_a.py::test_y[1]"]],
    ["pytest: nothing collected", ["pytest", "\nno tests collected in 0.01s\n"], []],
    ["pytest: an import error, no summary", ["pytest", "ERROR tests/test_a.py - ImportError\n"], null],
    ["go test -list", ["go", "TestA\nTestB\nok  \texample.com/m\t0.002s\nTestC\nok  \texample.com/m/sub\t0.001s\n"], ["example.com/m.TestA", "example.com/m.TestB", "example.com/m/sub.TestC"]],
    ["cargo test -- --list", ["cargo", "tests::adds: test\ntests::bench_x: bench\n\n1 test, 1 benchmark\n"], ["tests::adds"]],
  ])("%s", (_n, args, want) => expect(parseInventory(...args)).toEqual(want));
});

describe("inventoryRefusal (pure)", () => {
  it.each<[string, string[], string[], string[], RegExp | null]>([
    ["same tests", ["a", "b"], ["a", "b"], [], null],
    ["a renamed test (same count)", ["a", "b"], ["a", "b2"], [], null],
    ["a new test", ["a"], ["a", "b"], [], null],
    ["one fewer", ["a", "b"], ["a"], [], /2 before \(1 fewer; gone: "b"\)/],
    ["a repeated name lost once (it.each)", ["t", "t"], ["t"], [], /1 fewer; gone: "t"/],
    ["a test the base itself deleted, on a merge", ["a", "b"], ["a"], ["b"], null],
    ["excused one, another lost too", ["a", "b", "c"], ["a"], ["b"], /1 fewer; gone: "c"/],
  ])("%s", (_n, before, after, excused, want) => {
    const r = inventoryRefusal("vitest", before, after, new Set(excused));
    if (want) expect(r).toMatch(want);
    else expect(r).toBeNull();
  });
  it("lostTests is a multiset difference", () => expect(lostTests(["a", "a", "b"], ["a", "c"])).toEqual(["a", "b"]));
});

const JS = `it("adds", () => {
  expect(sum(1, 2)).toBe(3);
});
`;
const PY = "def test_add():\n    assert add(1, 2) == 3\n";

describe("hollowedTests (pure): a changed test left with no assertion that can fail", () => {
  it.each<[string, string, string, string, string[]]>([
    ["a fixed expectation", "a.test.ts", JS, JS.replace("toBe(3)", "toBe(4)"), []],
    ["expect(3).toBe(3)", "a.test.ts", JS, JS.replace("sum(1, 2)", "3"), ["adds"]],
    ["expect('x').toBe('x')", "a.test.ts", JS, JS.replace("sum(1, 2)).toBe(3)", '"x").toBe("x")'), ["adds"]],
    ["return; first", "a.test.ts", JS, JS.replace("{\n", "{\n  return;\n"), ["adds"]],
    ["throw first", "a.test.ts", JS, JS.replace("{\n", "{\n  throw 0;\n"), ["adds"]],
    ["a conditional return keeps the assertion live", "a.test.ts", JS, JS.replace("{\n", "{\n  if (skip) return;\n"), []],
    ["return of the assertion itself", "a.test.ts", JS, JS.replace("  expect", "  return expect"), []],
    ["if (false) expect(…)", "a.test.ts", JS, JS.replace("  expect", "  if (false) expect"), ["adds"]],
    ["if (0) { expect(…) }", "a.test.ts", JS, JS.replace("  expect(sum(1, 2)).toBe(3);", "  if (0) { expect(sum(1, 2)).toBe(3); }"), ["adds"]],
    ["if (cond) expect(…) stays live", "a.test.ts", JS, JS.replace("  expect", "  if (cond) expect"), []],
    ["an assertion in a nested callback after a return in it", "a.test.ts", JS, JS.replace("  expect(sum(1, 2)).toBe(3);", "  [1].forEach((x) => { return; });\n  expect(sum(1, 2)).toBe(3);"), []],
    ["python: assert 1 == 1", "test_a.py", PY, PY.replace("add(1, 2) == 3", "1 == 1"), ["test_add"]],
    ["python: assert True", "test_a.py", PY, PY.replace("add(1, 2) == 3", "True"), ["test_add"]],
    ["python: return first", "test_a.py", PY, PY.replace(":\n", ":\n    return\n"), ["test_add"]],
    ["python: if False:", "test_a.py", PY, PY.replace("    assert", "    if False:\n        assert"), ["test_add"]],
    ["python: a real change", "test_a.py", PY, PY.replace("== 3", "== 4"), []],
    ["an unchanged body is never judged", "a.test.ts", JS.replace("sum(1, 2)", "3"), JS.replace("sum(1, 2)", "3"), []],
  ])("%s", (_n, path, before, after, want) => expect(hollowedTests(path, before, after)).toEqual(want));
});

const PYPROJECT = '[project]\nname = "calc"\n';
const CARGO = '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n';

describe("testConfigChange (pure): how tests are selected or run", () => {
  const c = (path: string, before: string, after: string) => testConfigChange({ path, before, after });
  it.each<[string, string | null, RegExp | null]>([
    ["vitest.config.ts", c("vitest.config.ts", "", "export default {}"), /test runner configuration/],
    ["vite.config.mts", c("web/vite.config.mts", "a", "b"), /test runner configuration/],
    ["jest.config.js", c("jest.config.js", "a", "b"), /test runner configuration/],
    ["playwright.config.ts", c("playwright.config.ts", "a", "b"), /test runner configuration/],
    [".mocharc.yml", c(".mocharc.yml", "a", "b"), /test runner configuration/],
    ["pytest.ini", c("pytest.ini", "a", "b"), /test runner configuration/],
    ["a nested conftest.py", c("tests/unit/conftest.py", "", "x"), /test runner configuration/],
    ["tox.ini", c("tox.ini", "a", "b"), /test runner configuration/],
    ["a workflow", c(".github/workflows/ci.yml", "a", "b"), /a CI workflow/],
    ["package.json scripts", c("package.json", pkg({ scripts: { test: "vitest" } }), pkg({ scripts: { test: "exit 0" } })), /"scripts"/],
    ["package.json jest key", c("package.json", pkg({ jest: {} }), pkg({ jest: { testPathIgnorePatterns: ["a"] } })), /"scripts"/],
    ["package.json dependency bump only", c("package.json", pkg({ scripts: { test: "vitest" }, dependencies: { a: "1" } }), pkg({ scripts: { test: "vitest" }, dependencies: { a: "2" } })), null],
    ["package.json made unreadable", c("package.json", pkg({}), "{"), /"scripts"/],
    ["pyproject [tool.pytest.ini_options]", c("pyproject.toml", "[tool.pytest.ini_options]\na = 1\n", "[tool.pytest.ini_options]\na = 1\naddopts = '-k not x'\n"), /test sections/],
    [
      "pyproject dependencies only",
      c("pyproject.toml", "[project]\ndependencies = ['a']\n[tool.pytest.ini_options]\na = 1\n", "[project]\ndependencies = ['b']\n[tool.pytest.ini_options]\na = 1\n"),
      null,
    ],
    ["setup.cfg [tool:pytest]", c("setup.cfg", "[metadata]\n", "[metadata]\n[tool:pytest]\naddopts = -x\n"), /test sections/],
    ["Cargo.toml [[test]]", c("Cargo.toml", "[package]\n", "[package]\n[[test]]\nname = 'x'\nharness = false\n"), /test sections/],
    ["Cargo.toml dependencies", c("Cargo.toml", "[dependencies]\na = '1'\n", "[dependencies]\na = '2'\n"), null],
    // Parsed, not read line by line: what the runner reads, however it is written.
    ["pyproject: a top-level dotted key", c("pyproject.toml", PYPROJECT, `tool.pytest.ini_options.addopts = "-q -k nothing"\n${PYPROJECT}`), /tool\.pytest/],
    ["pyproject: an inline table", c("pyproject.toml", PYPROJECT, `tool = { pytest = { ini_options = { addopts = "--collect-only" } } }\n${PYPROJECT}`), /tool\.pytest/],
    [
      "pyproject: a multi-line string hiding a header",
      c("pyproject.toml", '[tool.pytest.ini_options]\naddopts = """\n-q\n"""\n', '[tool.pytest.ini_options]\naddopts = """\n[x]\n-q -k nothing\n"""\n'),
      /tool\.pytest/,
    ],
    ["pyproject: the same table rewritten as dotted keys", c("pyproject.toml", "[tool.pytest.ini_options]\na = 1\n", "tool.pytest.ini_options.a = 1\n"), null],
    ["pyproject: comments and spacing only", c("pyproject.toml", "[tool.pytest.ini_options]\na = 1\n", "# tests\n[tool.pytest.ini_options]\na   =   1 # one\n"), null],
    ["pyproject: coverage's fail_under lowered", c("pyproject.toml", "[tool.coverage.report]\nfail_under = 90\n", "[tool.coverage.report]\nfail_under = 0\n"), /tool\.coverage/],
    ["pyproject made unparseable", c("pyproject.toml", PYPROJECT, `${PYPROJECT}name = "again"\n`), /pyproject\.toml \(not valid TOML/],
    ["pyproject deleted with its pytest table", c("pyproject.toml", "[tool.pytest.ini_options]\na = 1\n", ""), /tool\.pytest/],
    ["pyproject repaired from unparseable, no test table", c("pyproject.toml", "[project\n", PYPROJECT), null],
    ["Cargo.toml: a top-level dotted lib.test = false", c("Cargo.toml", CARGO, `lib.test = false\n${CARGO}`), /Cargo\.toml \(its test sections\) \[lib\]/],
    ["Cargo.toml: an inline lib table", c("Cargo.toml", CARGO, `lib = { test = false }\n${CARGO}`), /lib/],
    ["Cargo.toml: autotests = false in [package]", c("Cargo.toml", CARGO, CARGO.replace('edition = "2021"', 'edition = "2021"\nautotests = false')), /package\.autotests/],
    ["Cargo.toml: a version bump", c("Cargo.toml", CARGO, CARGO.replace("0.1.0", "0.1.1")), null],
    ["Cargo.toml made unparseable", c("Cargo.toml", CARGO, "[package\n"), /not valid TOML/],
    ["setup.cfg: a continuation line of addopts", c("setup.cfg", "[tool:pytest]\naddopts =\n  -q\n", "[tool:pytest]\naddopts =\n  -q -k nothing\n"), /tool:pytest/],
    ["setup.cfg: metadata only", c("setup.cfg", "[metadata]\nname = a\n[tool:pytest]\naddopts = -q\n", "[metadata]\nname = b\n[tool:pytest]\naddopts = -q\n"), null],
    ["a Go build tag on a test file", c("sum_test.go", "package sum\n", "//go:build never\n\npackage sum\n"), /build tags/],
    ["an ordinary source file", c("src/sum.ts", "a", "b"), null],
  ])("%s", (_n, got, want) => {
    if (want) expect(got).toMatch(want);
    else expect(got).toBeNull();
  });
  it("the refusal names the files and the allowance", () => {
    expect(testConfigRefusal([{ path: "pytest.ini", before: "", after: "x" }])).toMatch(/pytest\.ini .*`@open-swe fix ci --allow-test-config`/);
    expect(testConfigRefusal([{ path: "src/a.ts", before: "", after: "x" }])).toBeNull();
  });
});
