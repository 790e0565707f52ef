import { shellQuote } from "../../shared/shell-quote.js";
import type { Sandbox } from "../types.js";
import { hostGit } from "./host-git.js";
import { detectTestRunner, inventoryCommand, inventoryRefusal, lostTests, parseInventory, type RepoFacts, type TestRunner } from "./test-inventory.js";

/** One listing's time limit: a collection that hangs is the change's problem, not the worker's. */
export const INVENTORY_TIMEOUT_MS = 3 * 60_000;

export interface InventoryVerdict {
  /** Why the push is refused, or null. */
  refusal: string | null;
  /** One line for the run's Autofix check: how the tests were judged. */
  note: string;
}

export type Listing = { ok: true; tests: string[] } | { ok: false; error: string };

/** Host side, in the mirror: what `detectTestRunner` reads of the commit. */
export async function repoFactsAt(mirror: string, sha: string): Promise<RepoFacts> {
  const root = await hostGit(["-C", mirror, "ls-tree", "-z", "--name-only", sha]);
  const rootFiles = new Set(root.split("\0").filter(Boolean));
  const show = (path: string) => (rootFiles.has(path) ? hostGit(["-C", mirror, "cat-file", "blob", `${sha}:${path}`]).catch(() => null) : Promise.resolve(null));
  const python = (await Promise.all(["pyproject.toml", "setup.cfg", "tox.ini"].map(show))).filter((t): t is string => t !== null).join("\n");
  const all = await hostGit(["-C", mirror, "ls-tree", "-r", "-z", "--name-only", sha]);
  const hasPythonTests = all.split("\0").some((p) => /(?:^|\/)(?:test_[^/]*|[^/]*_test)\.py$/.test(p));
  return { rootFiles, packageJson: await show("package.json"), pythonConfig: python || null, hasPythonTests };
}

/**
 * Inside the sandbox: the tests the runner collects at `sha`, from a fresh copy of that commit in /tmp
 * (the workspace's untracked files are not part of it; its installed dependencies are linked in).
 */
export async function listTestsAt(sandbox: Sandbox, sha: string, runner: TestRunner, timeoutMs = INVENTORY_TIMEOUT_MS): Promise<Listing> {
  const w = sandbox.workdir;
  const dir = `/tmp/osw-tests-${sha.slice(0, 16)}`;
  const python = `"$( [ -x ${shellQuote(`${w}/.venv/bin/python`)} ] && echo ${shellQuote(`${w}/.venv/bin/python`)} || echo python3)"`;
  const script = [
    `rm -rf ${dir} && mkdir -p ${dir}`,
    `git -C ${shellQuote(w)} archive --format=tar ${shellQuote(sha)} | tar -x -C ${dir}`,
    `if [ -e ${shellQuote(`${w}/node_modules`)} ] && [ ! -e ${dir}/node_modules ]; then ln -s ${shellQuote(`${w}/node_modules`)} ${dir}/node_modules; fi`,
    `cd ${dir}`,
    inventoryCommand(runner, { node_modules: `${dir}/node_modules`, python, out: `${dir}.json` }),
  ].join(" && ");
  const r = await sandbox.exec(`(${script}); rc=$?; rm -rf ${dir} ${dir}.json; exit $rc`, { timeoutMs, env: { CI: "1", NO_COLOR: "1" } });
  const tests = parseInventory(runner, r.stdout, dir);
  if (tests) return { ok: true, tests };
  return { ok: false, error: `exit ${r.exitCode}: ${(r.stderr.trim() || r.stdout.trim()).slice(-600) || "no output"}` };
}

/**
 * The runner's judgement of `from..to`: detect the runner at `to`, list the tests at both commits in the
 * sandbox, refuse fewer. On a merge (`acceptFrom`), tests the base branch itself deleted may go. An
 * unknown runner, or one that cannot list the tests before the change, leaves the text heuristic alone
 * to judge, and the note says so.
 */
export async function checkTestInventory(opts: { sandbox: Sandbox; mirror: string; from: string; to: string; acceptFrom?: string; timeoutMs?: number }): Promise<InventoryVerdict> {
  const runner = detectTestRunner(await repoFactsAt(opts.mirror, opts.to));
  if (!runner) return { refusal: null, note: "No test runner recognised (vitest, jest, pytest, go test, cargo test): the tests were judged by the text heuristic only." };
  const before = await listTestsAt(opts.sandbox, opts.from, runner, opts.timeoutMs);
  if (!before.ok) return { refusal: null, note: `${runner} could not list the tests before the change (${before.error.slice(0, 200)}): the tests were judged by the text heuristic only.` };
  const after = await listTestsAt(opts.sandbox, opts.to, runner, opts.timeoutMs);
  if (!after.ok) {
    return {
      refusal: `the test runner (${runner}) can no longer list the tests after the change (${after.error}); it could before. A CI fix must leave the tests collectable`,
      note: `${runner} could not list the tests after the change.`,
    };
  }
  let excused = new Set<string>();
  if (opts.acceptFrom && lostTests(before.tests, after.tests).length > 0) excused = await deletedByBase(opts, runner);
  const refusal = inventoryRefusal(runner, before.tests, after.tests, excused);
  return { refusal, note: `Tests judged by ${runner}'s own list: ${before.tests.length} before the change, ${after.tests.length} after.` };
}

/** On a merge: the tests the base branch deleted since it forked (at the merge base, not at the base). */
async function deletedByBase(opts: { sandbox: Sandbox; mirror: string; from: string; acceptFrom?: string; timeoutMs?: number }, runner: TestRunner): Promise<Set<string>> {
  const base = (await hostGit(["-C", opts.mirror, "rev-parse", "--verify", `${opts.acceptFrom}^{commit}`])).trim();
  const fork = (await hostGit(["-C", opts.mirror, "merge-base", opts.from, base])).trim();
  const [atBase, atFork] = [await listTestsAt(opts.sandbox, base, runner, opts.timeoutMs), await listTestsAt(opts.sandbox, fork, runner, opts.timeoutMs)];
  if (!atBase.ok || !atFork.ok) return new Set();
  return new Set(lostTests(atFork.tests, atBase.tests));
}
