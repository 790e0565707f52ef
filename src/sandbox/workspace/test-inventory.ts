/**
 * Pure: which test runner a repository uses, the command that lists its tests without running them, how
 * to read that list, and whether a change lost tests by it. The runner's own list is what CI runs: a test
 * it no longer collects (skipped, `runIf(false)`, excluded, deleted, its file renamed away) is gone,
 * however the source text is padded.
 */

export type TestRunner = "vitest" | "jest" | "pytest" | "go" | "cargo";

export interface RepoFacts {
  /** Paths of the repository's top-level files. */
  rootFiles: ReadonlySet<string>;
  /** The top-level package.json's text, if any. */
  packageJson: string | null;
  /** pyproject.toml / setup.cfg / tox.ini text, if any (for `[tool.pytest…]`). */
  pythonConfig: string | null;
  /** Does any tracked file look like a pytest test (`test_*.py`, `*_test.py`)? */
  hasPythonTests: boolean;
}

function packageDeps(text: string | null): { deps: Set<string>; testScript: string } {
  if (!text) return { deps: new Set(), testScript: "" };
  try {
    const j = JSON.parse(text) as { dependencies?: object; devDependencies?: object; scripts?: { test?: unknown } };
    const deps = new Set([...Object.keys(j.dependencies ?? {}), ...Object.keys(j.devDependencies ?? {})]);
    return { deps, testScript: typeof j.scripts?.test === "string" ? j.scripts.test : "" };
  } catch {
    return { deps: new Set(), testScript: "" };
  }
}

/** The repository's runner, or null when none is recognised (the text heuristic alone judges then). */
export function detectTestRunner(facts: RepoFacts): TestRunner | null {
  const has = (re: RegExp) => [...facts.rootFiles].some((f) => re.test(f));
  const pkg = packageDeps(facts.packageJson);
  if (facts.packageJson !== null) {
    const script = pkg.testScript;
    if (/\bvitest\b/.test(script) || (!/\bjest\b/.test(script) && (pkg.deps.has("vitest") || has(/^vitest\.(?:config|workspace)\./)))) return "vitest";
    if (/\bjest\b/.test(script) || pkg.deps.has("jest") || has(/^jest\.config\./)) return "jest";
  }
  if (has(/^(?:pytest\.ini|conftest\.py)$/) || /\[\s*tool\.pytest|\[\s*(?:tool:)?pytest\s*\]/.test(facts.pythonConfig ?? "") || facts.hasPythonTests) return "pytest";
  if (facts.rootFiles.has("go.mod")) return "go";
  if (facts.rootFiles.has("Cargo.toml")) return "cargo";
  return null;
}

/**
 * Shell, run in a checkout of the commit: lists the tests the runner would run, runs none. The JSON
 * runners write to `out`, outside the checkout (a file of that name in the commit is never read).
 */
export function inventoryCommand(runner: TestRunner, bin: { node_modules: string; python: string; out: string }): string {
  const INVENTORY_FILE = bin.out;
  switch (runner) {
    case "vitest":
      // vitest 5's `list` parses files statically by default: an it.each over an imported table is one entry and an
      // emptied table goes unseen. `--staticParse=false` runs the collection as before (vitest 4 has no such flag).
      return `rm -f ${INVENTORY_FILE}; node ${bin.node_modules}/vitest/vitest.mjs list $(node -p "Number(require('${bin.node_modules}/vitest/package.json').version.split('.')[0]) >= 5 ? '--staticParse=false' : ''" 2>/dev/null) --json=${INVENTORY_FILE} >/dev/null; cat ${INVENTORY_FILE}`;
    case "jest":
      // A name no test has: every test is collected and reported, none runs.
      return `rm -f ${INVENTORY_FILE}; node ${bin.node_modules}/jest/bin/jest.js --ci --json --outputFile=${INVENTORY_FILE} --testNamePattern='^\\b$open-swe-no-test' --passWithNoTests >/dev/null 2>&1; cat ${INVENTORY_FILE}`;
    case "pytest":
      return `${bin.python} -m pytest --collect-only -q -p no:cacheprovider`;
    case "go":
      return "go test -list . ./...";
    case "cargo":
      return "cargo test --offline -q -- --list";
  }
}

/** The test ids in the runner's output, or null when it is not a list the runner prints. */
export function parseInventory(runner: TestRunner, stdout: string, root = ""): string[] | null {
  const rel = (file: string) => (root && file.startsWith(`${root}/`) ? file.slice(root.length + 1) : file);
  switch (runner) {
    case "vitest": {
      const json = safeJson(stdout);
      if (!Array.isArray(json)) return null;
      return json.map((t: { name?: unknown; file?: unknown }) => `${rel(String(t.file ?? ""))} > ${String(t.name ?? "")}`);
    }
    case "jest": {
      const json = safeJson(stdout) as { testResults?: Array<{ name?: string; assertionResults?: Array<{ fullName?: string }> }> } | null;
      if (!json || !Array.isArray(json.testResults)) return null;
      return json.testResults.flatMap((f) => (f.assertionResults ?? []).map((a) => `${rel(f.name ?? "")} > ${a.fullName ?? ""}`));
    }
    case "pytest": {
      const lines = stdout.split("\n").map((l) => l.trim());
      if (!lines.some((l) => /\b(?:\d+ tests? collected|no tests collected|\d+ tests? selected)\b/.test(l))) return null;
      return lines.filter((l) => l.includes("::"));
    }
    case "go": {
      const out: string[] = [];
      let pending: string[] = [];
      for (const line of stdout.split("\n")) {
        const t = line.trim();
        if (/^(?:Test|Benchmark|Example|Fuzz)\w*$/.test(t)) pending.push(t);
        const done = /^(?:ok|\?)\s+(\S+)/.exec(t);
        if (done) {
          out.push(...pending.map((n) => `${done[1]}.${n}`));
          pending = [];
        }
      }
      return out;
    }
    case "cargo":
      return stdout
        .split("\n")
        .map((l) => /^(.+): test$/.exec(l.trim())?.[1])
        .filter((n): n is string => n !== undefined);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text.trim());
  } catch {
    return null;
  }
}

/** The ids in `a` that `b` lacks, counted (a multiset difference: `it.each` repeats names). */
export function lostTests(a: readonly string[], b: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const id of b) left.set(id, (left.get(id) ?? 0) + 1);
  const lost: string[] = [];
  for (const id of a) {
    const n = left.get(id) ?? 0;
    if (n > 0) left.set(id, n - 1);
    else lost.push(id);
  }
  return lost;
}

/**
 * Why the change lost tests by the runner's count, or null. `excused`: tests the change may drop (on a
 * merge, those the base branch itself deleted).
 */
export function inventoryRefusal(runner: TestRunner, before: readonly string[], after: readonly string[], excused: ReadonlySet<string> = new Set()): string | null {
  const lost = lostTests(before, after).filter((id) => !excused.has(id));
  const missing = before.length - after.length - (lostTests(before, after).length - lost.length);
  if (missing <= 0) return null;
  const shown = lost
    .slice(0, 5)
    .map((id) => JSON.stringify(short(id)))
    .join(", ");
  return `it weakens the tests: ${runner} collects ${after.length} test(s) after the change and ${before.length} before (${missing} fewer${shown ? `; gone: ${shown}${lost.length > 5 ? ", …" : ""}` : ""}). A CI fix makes the tests pass by fixing the code, never by skipping, deleting, excluding or renaming tests away; if a test cannot be fixed, leave it and say why in your reply`;
}

const short = (id: string) => (id.length > 160 ? `${id.slice(0, 157)}…` : id);
