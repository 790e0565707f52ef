/**
 * Pure: does a change touch how the tests are selected or run? On a CI fix the cheapest green is a runner
 * that runs nothing (`"test": "exit 0"`, a config excluding the red file, `items.clear()` in a
 * conftest.py, a workflow that skips the job), so such a change is refused unless the request allowed it
 * (`@open-swe fix ci --allow-test-config`).
 */

import { isDeepStrictEqual } from "node:util";
import { parse as parseIni } from "ini";
import { parse as parseToml } from "smol-toml";

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

/**
 * Shared files parsed by a real parser (`smol-toml`, `ini`), and the subtrees of each that select or run the
 * tests: compared by value, so a dotted key, an inline table or a multi-line string is seen as what the runner
 * reads, wherever in the file it is written.
 */
const STRUCTURED: ReadonlyArray<{ file: RegExp; format: "TOML" | "ini"; subtrees: readonly (readonly string[])[] }> = [
  {
    file: /^pyproject\.toml$/i,
    format: "TOML",
    subtrees: [
      ["tool", "pytest"],
      ["tool", "hatch", "envs"],
      ["tool", "tox"],
      ["tool", "nox"],
      ["tool", "coverage"],
    ],
  },
  { file: /^setup\.cfg$/i, format: "ini", subtrees: [["tool:pytest"], ["pytest"], ["coverage:run"], ["coverage:report"]] },
  {
    file: /^Cargo\.toml$/i,
    format: "TOML",
    subtrees: [
      ["lib"],
      ["test"],
      ["bench"],
      ["bin"],
      ["example"],
      ["package", "autotests"],
      ["package", "autobenches"],
      ["package", "autobins"],
      ["package", "autoexamples"],
      ["package", "autolib"],
      ["workspace", "members"],
      ["workspace", "exclude"],
      ["workspace", "default-members"],
      ["features", "default"],
    ],
  },
];

/** The file parsed ("" is an empty document), or the parser's complaint. */
function parseConfig(format: "TOML" | "ini", text: string): { value: unknown } | { error: string } {
  if (format === "ini") return { value: parseIni(text) };
  try {
    return { value: parseToml(text) };
  } catch (e) {
    return { error: (e instanceof Error ? e.message : String(e)).split("\n")[0] ?? "" };
  }
}

const subtree = (value: unknown, path: readonly string[]): unknown =>
  path.reduce<unknown>((v, k) => (v !== null && typeof v === "object" && Object.hasOwn(v, k) ? (v as Record<string, unknown>)[k] : undefined), value);

/** Why a parsed file's test subtrees differ, or null. An unparseable result is refused; an unparseable original counts as empty. */
function structuredChange(c: ConfigFileChange, format: "TOML" | "ini", subtrees: readonly (readonly string[])[]): string | null {
  const after = parseConfig(format, c.after);
  if ("error" in after) return `${c.path} (not valid ${format}, so what it asks of the test runner cannot be checked: ${after.error})`;
  const before = parseConfig(format, c.before);
  const was = "error" in before ? {} : before.value;
  const changed = subtrees.filter((p) => !isDeepStrictEqual(subtree(was, p), subtree(after.value, p)));
  return changed.length === 0 ? null : `${c.path} (its test sections) [${changed.map((p) => p.join(".")).join(", ")}]`;
}

/** package.json keys that decide what `npm test` runs. */
const PACKAGE_KEYS = ["scripts", "jest", "mocha", "ava", "vitest", "workspaces"] as const;

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
  const structured = STRUCTURED.find((f) => f.file.test(name));
  if (structured) return structuredChange(c, structured.format, structured.subtrees);
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
    STRUCTURED.some((f) => f.file.test(name)) ||
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
