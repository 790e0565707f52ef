import { matchesAnyGlob } from "./glob.js";

export interface BudgetFile {
  path: string;
  status?: string | undefined;
  patch?: string | undefined;
}

export type SkipCode = "ignored" | "lockfile" | "vendored" | "generated" | "no_patch" | "over_budget";

export interface UnreviewedFile {
  path: string;
  code: SkipCode;
  reason: string;
}

export type FileClass = "source" | "config" | "test" | "docs" | "removed";

export interface BudgetSelection<F extends BudgetFile> {
  reviewed: F[];
  unreviewed: UnreviewedFile[];
  tokensUsed: number;
}

export interface BudgetOptions {
  tokenBudget: number;
  /** The repo's `review.ignored_paths` globs. */
  ignoredPaths?: readonly string[];
}

const LOCKFILES = new Set([
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "bun.lockb",
  "bun.lock",
  "Cargo.lock",
  "Gemfile.lock",
  "poetry.lock",
  "Pipfile.lock",
  "uv.lock",
  "composer.lock",
  "go.sum",
  "flake.lock",
  "mix.lock",
  "pubspec.lock",
  "packages.lock.json",
  "Podfile.lock",
  "gradle.lockfile",
  "deno.lock",
]);
const VENDORED = ["vendor/", "node_modules/", "third_party/", "third-party/", "Pods/", ".yarn/", "bower_components/"];
const GENERATED_GLOBS = [
  "*.min.js",
  "*.min.css",
  "*.map",
  "*.pb.go",
  "*_pb2.py",
  "*_pb2_grpc.py",
  "*.pb.ts",
  "*.generated.*",
  "*.g.dart",
  "*.freezed.dart",
  "*.snap",
  "__generated__/",
  "generated/",
  "dist/",
  "build/",
  "coverage/",
];
const GENERATED_HEADER = /@generated|Code generated .* DO NOT EDIT|auto-?generated|DO NOT EDIT/i;
const TEST_GLOBS = ["test/", "tests/", "__tests__/", "spec/", "*.test.*", "*.spec.*", "*_test.go", "test_*.py", "*_test.py", "*Test.java", "*Tests.cs"];
const DOC_GLOBS = ["docs/", "doc/", "*.md", "*.mdx", "*.rst", "*.adoc", "*.txt", "LICENSE*", "CHANGELOG*"];
const SOURCE_EXT = /\.(ts|tsx|js|jsx|mjs|cjs|py|go|rs|java|kt|kts|scala|rb|php|cs|c|h|cc|cpp|hpp|m|mm|swift|dart|ex|exs|erl|clj|hs|ml|lua|sh|bash|sql|vue|svelte)$/i;

const CLASS_RANK: Record<FileClass, number> = { source: 0, config: 1, test: 2, docs: 3, removed: 4 };
const PER_FILE_OVERHEAD = 20;

export function estimateTokens(file: BudgetFile): number {
  return Math.ceil((file.patch?.length ?? 0) / 4) + PER_FILE_OVERHEAD;
}

export function classifyFile(file: BudgetFile): FileClass {
  if (file.status === "removed") return "removed";
  if (matchesAnyGlob(file.path, TEST_GLOBS)) return "test";
  if (matchesAnyGlob(file.path, DOC_GLOBS)) return "docs";
  return SOURCE_EXT.test(file.path) ? "source" : "config";
}

/** Why a file is left out before any budget is spent, or null when it deserves a review. */
export function exclusionReason(file: BudgetFile, ignoredPaths: readonly string[]): UnreviewedFile | null {
  const base = file.path.slice(file.path.lastIndexOf("/") + 1);
  const ignored = matchesAnyGlob(file.path, ignoredPaths);
  if (ignored) return { path: file.path, code: "ignored", reason: `matches the repo's ignored path \`${ignored}\`` };
  if (LOCKFILES.has(base)) return { path: file.path, code: "lockfile", reason: "lock file" };
  if (matchesAnyGlob(file.path, VENDORED)) return { path: file.path, code: "vendored", reason: "vendored dependency" };
  if (matchesAnyGlob(file.path, GENERATED_GLOBS)) return { path: file.path, code: "generated", reason: "generated file" };
  const head = file.patch?.split("\n").slice(0, 8).join("\n") ?? "";
  if (GENERATED_HEADER.test(head)) return { path: file.path, code: "generated", reason: "generated file (marked in its header)" };
  if (file.patch === undefined && file.status !== "removed") return { path: file.path, code: "no_patch", reason: "no diff available (binary, or too large for GitHub to show)" };
  return null;
}

/**
 * Picks the files to review within a token budget. Excluded kinds go first, then source before
 * config, tests, docs and deletions; within a class smaller diffs first so more files fit.
 * Every file ends up in exactly one of `reviewed` / `unreviewed`.
 */
export function selectFilesForReview<F extends BudgetFile>(files: readonly F[], options: BudgetOptions): BudgetSelection<F> {
  const ignored = options.ignoredPaths ?? [];
  const unreviewed: UnreviewedFile[] = [];
  const candidates: Array<{ file: F; cls: FileClass; cost: number; index: number }> = [];
  files.forEach((file, index) => {
    const excluded = exclusionReason(file, ignored);
    if (excluded) unreviewed.push(excluded);
    else candidates.push({ file, cls: classifyFile(file), cost: estimateTokens(file), index });
  });
  candidates.sort((a, b) => CLASS_RANK[a.cls] - CLASS_RANK[b.cls] || a.cost - b.cost || a.index - b.index);
  const picked: Array<{ file: F; index: number }> = [];
  let used = 0;
  for (const c of candidates) {
    if (used + c.cost <= options.tokenBudget) {
      used += c.cost;
      picked.push(c);
    } else {
      unreviewed.push({ path: c.file.path, code: "over_budget", reason: `over the review budget (${c.cls} file, ~${c.cost} tokens)` });
    }
  }
  picked.sort((a, b) => a.index - b.index);
  return { reviewed: picked.map((p) => p.file), unreviewed, tokensUsed: used };
}
