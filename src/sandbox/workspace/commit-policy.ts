import { hostGit } from "./host-git.js";
import { isTestPath, type TestFileChange } from "./test-weakening.js";

/** Directories that hold installed dependencies or build output: never the task's change. */
export const BUILD_DIRS = new Set(["node_modules", "dist", ".venv", "venv", "target", "__pycache__", ".pytest_cache", ".mypy_cache", ".next", ".tox", ".gradle"]);

export interface CommitCaps {
  maxFiles: number;
  maxBytes: number;
}

export interface ChangedPath {
  /** git's status letter: A added, M modified, D deleted, T type change. */
  status: string;
  path: string;
  /** Size of the new blob (0 for a deletion). */
  bytes: number;
}

/** `a/node_modules/x.js` → `a/node_modules`: the build directory a path lies in, or null. */
export function buildDirOf(path: string): string | null {
  const parts = path.split("/");
  const i = parts.slice(0, -1).findIndex((p) => BUILD_DIRS.has(p));
  return i < 0 ? null : parts.slice(0, i + 1).join("/");
}

const fmtBytes = (n: number) => (n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MB` : `${Math.ceil(n / 1024)} KB`);

/**
 * Pure: why these changes are not a commit the task made, or null. Files added under a dependency or
 * build directory are refused unless that directory is already tracked on the base (`trackedDirs`).
 */
export function commitRefusal(changes: readonly ChangedPath[], caps: CommitCaps, trackedDirs: ReadonlySet<string>): string | null {
  const added = new Map<string, number>();
  for (const c of changes) {
    if (c.status !== "A") continue;
    const dir = buildDirOf(c.path);
    if (dir && !trackedDirs.has(dir)) added.set(dir, (added.get(dir) ?? 0) + 1);
  }
  if (added.size > 0) {
    const dirs = [...added].slice(0, 5).map(([d, n]) => `${d}/ (${n} file${n === 1 ? "" : "s"})`);
    return `it adds dependency or build output: ${dirs.join(", ")}${added.size > 5 ? `, and ${added.size - 5} more` : ""}. Add those directories to .gitignore and take them out of the commit`;
  }
  if (changes.length > caps.maxFiles) return `it changes ${changes.length} files; the cap is ${caps.maxFiles}. Commit only what the task changed`;
  const bytes = changes.reduce((n, c) => n + c.bytes, 0);
  if (bytes > caps.maxBytes) return `it adds ${fmtBytes(bytes)} of file content; the cap is ${fmtBytes(caps.maxBytes)}. Leave generated or binary files out`;
  return null;
}

/** Host side, in the mirror: what `from..to` changes, with the size of each new blob. */
export async function changedPaths(mirror: string, from: string, to: string): Promise<ChangedPath[]> {
  const raw = await hostGit(["-C", mirror, "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", from, to]);
  const fields = raw.split("\0");
  const entries: { status: string; path: string; sha: string }[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const meta = fields[i]!.split(" ");
    entries.push({ status: meta[4] ?? "", sha: meta[3] ?? "", path: fields[i + 1]! });
  }
  const blobs = entries.filter((e) => e.status !== "D" && !/^0+$/.test(e.sha));
  const sizes = new Map<string, number>();
  if (blobs.length > 0) {
    const out = await hostGit(["-C", mirror, "cat-file", "--batch-check=%(objectname) %(objectsize)"], { stdin: Buffer.from(blobs.map((b) => b.sha).join("\n") + "\n") });
    for (const line of out.split("\n")) {
      const [sha, size] = line.split(" ");
      if (sha && size) sizes.set(sha, Number(size));
    }
  }
  return entries.map((e) => ({ status: e.status, path: e.path, bytes: e.status === "D" ? 0 : (sizes.get(e.sha) ?? 0) }));
}

/** Which of these build directories the base already tracks (a repo that commits its `dist/`). */
export async function trackedBuildDirs(mirror: string, base: string, changes: readonly ChangedPath[]): Promise<Set<string>> {
  const dirs = [
    ...new Set(
      changes
        .filter((c) => c.status === "A")
        .map((c) => buildDirOf(c.path))
        .filter((d): d is string => d !== null),
    ),
  ].slice(0, 100);
  if (dirs.length === 0) return new Set();
  const out = await hostGit(["-C", mirror, "ls-tree", "-d", "-z", "--name-only", base, "--", ...dirs]);
  return new Set(out.split("\0").filter(Boolean));
}

/** More changed test files than this in one push is itself refused on a guarded run: too many to judge. */
export const MAX_GUARDED_TEST_FILES = 300;

/** Host side, in the mirror: each changed file `pick` selects, with its content before and after `from..to`. */
export async function fileChanges(mirror: string, from: string, to: string, pick: (path: string) => boolean, acceptFrom?: string): Promise<TestFileChange[] | null> {
  const raw = await hostGit(["-C", mirror, "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", from, to]);
  const fields = raw.split("\0");
  const files: { path: string; old: string; new: string }[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const meta = fields[i]!.split(" ");
    const path = fields[i + 1]!;
    if (pick(path)) files.push({ path, old: meta[2] ?? "", new: meta[3] ?? "" });
  }
  if (acceptFrom && files.length > 0) {
    // A merge brings the base's own changes: a file left exactly as the base has it is not the run's doing.
    const out = await hostGit(["-C", mirror, "ls-tree", "-r", "-z", acceptFrom, "--", ...files.map((f) => `:(literal)${f.path}`)]).catch(() => "");
    const atBase = new Map(
      out
        .split("\0")
        .filter(Boolean)
        .map((l) => [l.slice(l.indexOf("\t") + 1), l.split(" ")[2]?.split("\t")[0] ?? ""]),
    );
    const gone = (sha: string) => /^0*$/.test(sha);
    for (let i = files.length - 1; i >= 0; i--) {
      const f = files[i]!;
      if (gone(f.new) ? !atBase.has(f.path) : atBase.get(f.path) === f.new) files.splice(i, 1);
    }
  }
  if (files.length > MAX_GUARDED_TEST_FILES) return null;
  const blob = async (sha: string) => (/^0*$/.test(sha) ? "" : hostGit(["-C", mirror, "cat-file", "blob", sha]).catch(() => ""));
  const out: TestFileChange[] = [];
  for (const f of files) out.push({ path: f.path, before: await blob(f.old), after: await blob(f.new) });
  return out;
}

/** Host side, in the mirror: each changed test file's content before and after `from..to` (for `testWeakening`). */
export const testFileChanges = (mirror: string, from: string, to: string, acceptFrom?: string) => fileChanges(mirror, from, to, isTestPath, acceptFrom);

/**
 * Host side, on a merge of `base` into the PR's head `from`: the paths `changes` deletes that the pull
 * request itself added (in `from`, not where it forked from `base`). A conflict fix never drops those.
 */
export async function deletedPrFiles(mirror: string, from: string, base: string, changes: readonly ChangedPath[]): Promise<string[]> {
  const deleted = changes.filter((c) => c.status === "D").map((c) => c.path);
  if (deleted.length === 0) return [];
  const fork = (await hostGit(["-C", mirror, "merge-base", from, base])).trim();
  const out = await hostGit(["-C", mirror, "ls-tree", "-r", "-z", "--name-only", fork, "--", ...deleted.map((p) => `:(literal)${p}`)]);
  const atFork = new Set(out.split("\0").filter(Boolean));
  return deleted.filter((p) => !atFork.has(p));
}
