/**
 * Pure: does a change touch how the tests are selected or run? On a CI fix the cheapest green is a runner
 * that runs nothing (`"test": "exit 0"`, a config excluding the red file, `items.clear()` in a
 * conftest.py, a workflow that skips the job), so such a change is refused unless the request allowed it
 * (`@open-swe fix ci --allow-test-config`).
 */

export interface ConfigFileChange {
  path: string;
  /** The file before the change ("" when added). */
  before: string;
  /** After ("" when deleted). */
  after: string;
}

/** Files that are test configuration as a whole, by name (any directory). */
const WHOLE_FILES: readonly RegExp[] = [
  /^(?:vitest|vite)\.(?:config|workspace|projects)\.[cm]?[jt]s$/i,
  /^vitest\.workspace\.json$/i,
  /^jest\.config\.(?:[cm]?[jt]s|json)$/i,
  /^jest\.setup\.[cm]?[jt]s$/i,
  /^playwright\.config\.[cm]?[jt]s$/i,
  /^(?:\.mocharc(?:\.[cm]?js|\.json|\.jsonc|\.ya?ml)?|mocha\.opts)$/i,
  /^karma\.conf\.[cm]?[jt]s$/i,
  /^pytest\.ini$/i,
  /^conftest\.py$/i,
  /^tox\.ini$/i,
  /^noxfile\.py$/i,
];

/** Sections of shared files that configure the runner: `[tool.pytest.ini_options]`, `[tool:pytest]`, `[[test]]`. */
const SECTIONS: ReadonlyArray<readonly [RegExp, RegExp]> = [
  [/^pyproject\.toml$/i, /^\[\s*tool\.(?:pytest|hatch\.envs|tox|nox)\b/],
  [/^setup\.cfg$/i, /^\[\s*(?:tool:pytest|pytest)\s*\]/],
  [/^Cargo\.toml$/i, /^\[\[?\s*(?:test|bench|lib)\s*\]?\]/],
];

/** package.json keys that decide what `npm test` runs. */
const PACKAGE_KEYS = ["scripts", "jest", "mocha", "ava", "vitest", "workspaces"] as const;

/** The lines of the named sections of an ini/TOML file, in order (a section runs to the next header). */
export function sectionText(text: string, header: RegExp): string {
  const out: string[] = [];
  let inside = false;
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (/^\[/.test(t)) inside = header.test(t);
    if (inside && t && !t.startsWith("#")) out.push(t);
  }
  return out.join("\n");
}

function packageKeys(text: string): string | null {
  if (!text) return "";
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    return JSON.stringify(PACKAGE_KEYS.map((k) => json[k] ?? null));
  } catch {
    return null;
  }
}

/** `//go:build` and `// +build` lines of a Go test file: a tag can drop the file from `go test`. */
const goConstraints = (text: string) =>
  text
    .split("\n")
    .filter((l) => /^\s*\/\/\s*(?:go:build|\+build)\b/.test(l))
    .map((l) => l.trim())
    .join("\n");

/** Why this file's change changes how tests run, or null. */
export function testConfigChange(c: ConfigFileChange): string | null {
  const parts = c.path.split("/");
  const name = parts.at(-1) ?? "";
  const lower = c.path.toLowerCase();
  if (lower.startsWith(".github/workflows/") || lower === ".github/workflows" || lower === ".github") return `${c.path} (a CI workflow)`;
  if (WHOLE_FILES.some((re) => re.test(name))) return `${c.path} (test runner configuration)`;
  if (name === "package.json") {
    const a = packageKeys(c.before);
    const b = packageKeys(c.after);
    if (a === null || b === null || a !== b) return `${c.path} (its "scripts" or test-runner settings)`;
    return null;
  }
  for (const [file, header] of SECTIONS) {
    if (file.test(name) && sectionText(c.before, header) !== sectionText(c.after, header)) return `${c.path} (its test sections)`;
  }
  if (/_test\.go$/.test(name) && goConstraints(c.before) !== goConstraints(c.after)) return `${c.path} (its build tags)`;
  return null;
}

/** Could this path hold test configuration (the files worth reading for `testConfigChange`)? */
export function mayBeTestConfig(path: string): boolean {
  const name = path.split("/").at(-1) ?? "";
  const lower = path.toLowerCase();
  return (
    lower === ".github" ||
    lower.startsWith(".github/workflows") ||
    WHOLE_FILES.some((re) => re.test(name)) ||
    name === "package.json" ||
    SECTIONS.some(([file]) => file.test(name)) ||
    /_test\.go$/.test(name)
  );
}

/** Why this change is refused on a CI fix that was not allowed to change test configuration, or null. */
export function testConfigRefusal(changes: readonly ConfigFileChange[]): string | null {
  const hits = changes.map(testConfigChange).filter((r): r is string => r !== null);
  if (hits.length === 0) return null;
  const shown = hits.slice(0, 5).join(", ") + (hits.length > 5 ? `, and ${hits.length - 5} more` : "");
  return `it changes how the tests are selected or run: ${shown}. A CI fix makes the tests pass by fixing the code, not the test runner's configuration; if the configuration itself is wrong, say so in your reply — a writer can allow it with \`@open-swe fix ci --allow-test-config\``;
}
