/**
 * Pure: does a change weaken the test suite? Used on CI fix runs, whose goal ("make CI green") a hostile
 * or lazy model can reach by skipping or deleting tests. Each changed test file is compared before and
 * after, outside comments: a skip marker added anywhere, or fewer test cases or assertions across all
 * test files (moving a test between files is fine), refuses the push.
 */

import { blankStrings, hollowedTests } from "./test-bodies.js";

/** Where tests live, by directory or by file name, for the languages the agent works in. */
const TEST_DIRS = new Set(["test", "tests", "__tests__", "spec", "specs", "e2e", "testing"]);
const TEST_FILE = [
  /\.(?:test|spec|e2e)\.[cm]?[jt]sx?$/i,
  /^test_.*\.py$/,
  /_test\.py$/,
  /^conftest\.py$/,
  /_test\.go$/,
  /(?:Test|Tests|Spec|IT)\.(?:java|kt|scala|cs|groovy)$/,
  /_(?:spec|test)\.rb$/,
  // Rust's unit tests sit next to the code: every .rs file may hold `#[test]`s.
  /\.rs$/,
];
const CODE_FILE = /\.(?:[cm]?[jt]sx?|py|go|rs|java|kt|scala|cs|groovy|rb|php|swift|ex|exs)$/i;

export function isTestPath(path: string): boolean {
  const parts = path.split("/");
  const name = parts.at(-1) ?? "";
  if (TEST_FILE.some((re) => re.test(name))) return true;
  return CODE_FILE.test(name) && parts.slice(0, -1).some((p) => TEST_DIRS.has(p.toLowerCase()));
}

/** Markers that make a runner skip, defer or (by focusing others) drop a test; a third entry limits one to file names. */
const SKIP_MARKERS: ReadonlyArray<readonly [string, RegExp, RegExp?]> = [
  [".skip(", /\.skip(?:If|Unless)?\s*\(/g],
  [".todo(", /\.todo\s*\(/g],
  [".only(", /\.only\s*\(/g],
  [".runIf(", /\.runIf\s*\(/g],
  [".skip`", /\.skip(?:If|Unless)?\s*`/g],
  ["xit/xdescribe/fit", /(?<![\w.$])(?:xit|xtest|xdescribe|xcontext|xspecify|xscenario|fit|fdescribe|fcontext)\s*\(/g],
  ["@pytest.mark.skip", /@pytest\.mark\.(?:skip|skipif|xfail)\b/g],
  ["pytest.skip(", /\bpytest\.(?:skip|xfail|importorskip)\s*\(/g],
  ["@unittest.skip", /@unittest\.(?:skip|skipIf|skipUnless|expectedFailure)\b/g],
  ["skipTest", /\.skipTest\s*\(|\braise\s+(?:unittest\.)?SkipTest\b/g],
  ["t.Skip(", /\b[tbf]\.Skip(?:f|Now)?\s*\(/g],
  ["#[ignore]", /#\[\s*ignore\b/g],
  ["@Disabled/@Ignore", /@(?:Disabled|Ignore|Ignored)\b/g],
  ["skip/pending (RSpec)", /^[ \t]*(?:skip|pending)\b(?!\s*[=.:])/gm, /\.rb$/],
];

/** Test-case declarations. */
const TEST_CASES: readonly RegExp[] = [
  /(?<![\w.$])(?:it|test|specify|scenario|xit|xtest|fit)\s*(?:\.\s*\w+\s*)*[(`]/g,
  /^[ \t]*(?:async[ \t]+)?def[ \t]+test\w*/gm,
  /^func[ \t]+(?:Test|Fuzz|Example)\w*\s*\(/gm,
  /\bt\.Run\s*\(/g,
  /#\[\s*(?:[\w:]+::)?test\b/g,
  /@(?:Test|ParameterizedTest|RepeatedTest|TestFactory)\b/g,
];

/** Assertions: deleting the check is the other way to make a test pass. */
const ASSERTIONS: readonly RegExp[] = [
  /(?<![\w.$])expect\s*\(/g,
  /(?<![\w$])assert(?:[A-Z_]\w*|\.\w+)?\s*[(!]/g,
  /^[ \t]*assert[ \t]+\S/gm,
  /\b[tb]\.(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow)\s*\(/g,
  /\.should\b/g,
];

const HASH_COMMENTS = /\.(?:py|rb|ex|exs|pl|sh)$/i;

/** The code outside comments (and Python docstrings): a commented-out test is a deleted test. */
export function stripComments(path: string, text: string): string {
  const hash = HASH_COMMENTS.test(path);
  let out = text;
  if (!hash) out = out.replace(/\/\*[\s\S]*?(?:\*\/|$(?![\s\S]))/g, " ");
  if (/\.py$/i.test(path)) out = out.replace(/"""[\s\S]*?(?:"""|$(?![\s\S]))|'''[\s\S]*?(?:'''|$(?![\s\S]))/g, " ");
  if (/\.rb$/i.test(path)) out = out.replace(/^=begin[\s\S]*?(?:^=end|$(?![\s\S]))/gm, " ");
  const marker = hash ? "#" : "//";
  return out
    .split("\n")
    .map((line) => {
      const t = line.trimStart();
      if (t.startsWith(marker)) return "";
      const i = line.indexOf(` ${marker} `);
      return i >= 0 ? line.slice(0, i) : line;
    })
    .join("\n");
}

const count = (text: string, res: readonly RegExp[]) => res.reduce((n, re) => n + (text.match(re)?.length ?? 0), 0);

export interface FileCounts {
  tests: number;
  assertions: number;
  skips: Map<string, number>;
}

/** Files whose string literals are blanked before counting: a string full of `it(` is not a test. */
const BLANK_STRINGS = /\.(?:[cm]?[jt]sx?|py)$/i;

export function countTestFacts(path: string, text: string): FileCounts {
  const stripped = stripComments(path, text);
  const code = BLANK_STRINGS.test(path) ? blankStrings(stripped) : stripped;
  const skips = new Map<string, number>();
  for (const [name, re, only] of SKIP_MARKERS) {
    if (only && !only.test(path)) continue;
    const n = code.match(re)?.length ?? 0;
    if (n > 0) skips.set(name, n);
  }
  return { tests: count(code, TEST_CASES), assertions: count(code, ASSERTIONS), skips };
}

export interface TestFileChange {
  path: string;
  /** The file before the change ("" when added). */
  before: string;
  /** After ("" when deleted). */
  after: string;
}

/** Why this change weakens the tests, in words the model can act on, or null. */
export function testWeakening(changes: readonly TestFileChange[]): string | null {
  const problems: string[] = [];
  let testsBefore = 0;
  let testsAfter = 0;
  let assertsBefore = 0;
  let assertsAfter = 0;
  const lostTests: string[] = [];
  for (const c of changes) {
    if (!isTestPath(c.path)) continue;
    const before = countTestFacts(c.path, c.before);
    const after = countTestFacts(c.path, c.after);
    testsBefore += before.tests;
    testsAfter += after.tests;
    assertsBefore += before.assertions;
    assertsAfter += after.assertions;
    if (after.tests < before.tests) lostTests.push(`${c.path} (${before.tests} → ${after.tests})`);
    const added = [...after.skips].filter(([name, n]) => n > (before.skips.get(name) ?? 0)).map(([name]) => name);
    if (added.length > 0) problems.push(`adds a skip marker (${added.join(", ")}) in ${c.path}`);
    const hollow = hollowedTests(c.path, stripComments(c.path, c.before), stripComments(c.path, c.after));
    if (hollow.length > 0)
      problems.push(
        `leaves ${hollow
          .slice(0, 3)
          .map((n) => JSON.stringify(n))
          .join(", ")} in ${c.path} with no assertion that can fail (a constant expectation, an early return or an if (false))`,
      );
  }
  if (testsAfter < testsBefore) problems.push(`removes ${testsBefore - testsAfter} test case(s): ${lostTests.slice(0, 5).join(", ")}`);
  if (assertsAfter < assertsBefore) problems.push(`removes ${assertsBefore - assertsAfter} assertion(s) from the tests`);
  if (problems.length === 0) return null;
  return `it weakens the tests: ${problems.slice(0, 6).join("; ")}. A CI fix makes the tests pass by fixing the code (or an expectation that is genuinely wrong), never by skipping, deleting or commenting out tests or assertions; if the test cannot be fixed, leave it and say why in your reply`;
}
