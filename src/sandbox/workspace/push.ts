import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { OpenSweError } from "../../errors.js";
import { shellQuote } from "../../shared/shell-quote.js";
import { SandboxError, type Sandbox } from "../types.js";
import { changedPaths, commitRefusal, deletedPrFiles, fileChanges, MAX_GUARDED_TEST_FILES, testFileChanges, trackedBuildDirs, type CommitCaps } from "./commit-policy.js";
import { hostGit } from "./host-git.js";
import { mayBeTestConfig, testConfigRefusal } from "./test-config-guard.js";
import type { InventoryVerdict } from "./test-inventory-check.js";
import { testWeakening } from "./test-weakening.js";

export type PushRejection =
  | "too_large"
  | "bad_bundle"
  | "extra_refs"
  | "not_fast_forward"
  | "workflow_change"
  | "workflow_permission"
  | "not_the_task"
  | "weakens_tests"
  | "test_config"
  | "deletes_pr_files"
  | "remote_rejected";

/** `SANDBOX_MAX_BUNDLE_MB`'s default. */
export const DEFAULT_MAX_BUNDLE_BYTES = 100 * 1024 * 1024;

/** GitHub's refusal when an app without the `workflows` permission pushes a change under .github/workflows. */
const NO_WORKFLOWS_PERMISSION = /without [`'"]?workflows?[`'"]? permission/i;

export class PushRejectedError extends OpenSweError<"push_rejected"> {
  constructor(
    readonly reason: PushRejection,
    message: string,
    options?: { cause?: unknown },
  ) {
    super("push_rejected", message, options);
  }
}

const BUNDLE_PATH = ".git/open-swe-push.bundle";

/**
 * Inside the sandbox: a git bundle of `branch` holding only commits the remote lacks (`since` is the
 * commit the remote has). Returns null when there is nothing new.
 */
export async function createPushBundle(sandbox: Sandbox, opts: { branch: string; since: string; maxBytes: number }): Promise<Uint8Array | null> {
  const ref = `refs/heads/${opts.branch}`;
  const count = await sandbox.exec(`git rev-list --count ${shellQuote(opts.since)}..${shellQuote(ref)}`);
  if (count.exitCode !== 0) throw new SandboxError("exec_failed", `cannot inspect ${ref}: ${count.stderr.trim()}`);
  if (Number(count.stdout.trim()) === 0) return null;
  const made = await sandbox.exec(`git bundle create -q ${BUNDLE_PATH} ${shellQuote(ref)} ^${shellQuote(opts.since)} && stat -c %s ${BUNDLE_PATH}`, { timeoutMs: 5 * 60_000 });
  if (made.exitCode !== 0) throw new SandboxError("exec_failed", `git bundle failed: ${made.stderr.trim()}`);
  try {
    // The size the sandbox reports only saves a pointless download; verifyAndPushBundle checks the bytes.
    const size = Number(made.stdout.trim());
    if (Number.isFinite(size) && size > opts.maxBytes) throw tooLarge(size, opts.maxBytes);
    const [file] = await sandbox.download([BUNDLE_PATH]);
    if (!file?.content) throw new SandboxError("exec_failed", `cannot read the push bundle: ${file?.error ?? "missing"}`);
    return file.content;
  } finally {
    await sandbox.exec(`rm -f ${BUNDLE_PATH}`);
  }
}

function tooLarge(size: number, max: number): PushRejectedError {
  const mb = (n: number) => (n / (1024 * 1024)).toFixed(1);
  return new PushRejectedError(
    "too_large",
    `the push is ${mb(size)} MB, over the ${mb(max)} MB limit (SANDBOX_MAX_BUNDLE_MB); commit only source changes (no build output, dependencies or large binaries)`,
  );
}

export interface VerifyAndPushOptions {
  mirror: string;
  bundle: Uint8Array;
  branch: string;
  /** The commit the remote branch is at now (or the base commit, for a new branch). */
  expectedOld: string;
  remoteUrl: string;
  /** Installation token scoped to this repository; reaches only the host git push process. */
  token?: string;
  allowWorkflowChanges?: boolean;
  /** Bundles larger than this are refused before git reads them. */
  maxBytes: number;
  /** Refuse pushes over these caps or adding dependency/build directories (`commit-policy.ts`). */
  caps?: CommitCaps;
  /** A CI fix run: refuse a push that skips or deletes tests or assertions (`test-weakening.ts`). */
  guardTests?: boolean;
  /** A merge of this commit's branch: test files left exactly as it has them are not judged, and files the PR added may not go. */
  guardTestsAcceptFrom?: string;
  /** On a guarded run: changes to how tests are selected or run are allowed (`fix ci --allow-test-config`). */
  allowTestConfig?: boolean;
  /** On a guarded run, after the text heuristic: the test runner's own list before and after (`test-inventory-check.ts`). */
  testInventory?: (from: string, to: string) => Promise<InventoryVerdict>;
}

export interface PushResult {
  newSha: string;
  commits: number;
  changedFiles: string[];
  /** On a guarded run: how the tests were judged, for the run's Autofix check. */
  testNote?: string;
}

/**
 * Host side: accept the sandbox's bundle only if it is within the size cap, a fast-forward of the
 * expected branch, carries no other ref, and (unless allowed) does not touch `.github/workflows`;
 * then push it with the token. The bundle is unpacked into a throwaway quarantine repository (its
 * objects borrowed from the mirror), and the mirror fetches from there: only objects reachable from
 * the pushed ref ever enter the mirror, whatever else the sandbox packed into the bundle.
 */
export async function verifyAndPushBundle(opts: VerifyAndPushOptions): Promise<PushResult> {
  if (opts.bundle.byteLength > opts.maxBytes) throw tooLarge(opts.bundle.byteLength, opts.maxBytes);
  const dir = await mkdtemp(join(tmpdir(), "osw-push-"));
  const file = join(dir, "push.bundle");
  const quarantine = join(dir, "quarantine.git");
  const incoming = `refs/open-swe/incoming-${randomBytes(6).toString("hex")}`;
  const want = `refs/heads/${opts.branch}`;
  try {
    await writeFile(file, opts.bundle);
    let heads: string;
    try {
      heads = await hostGit(["bundle", "list-heads", file]);
      await hostGit(["-C", opts.mirror, "bundle", "verify", "--quiet", file]);
    } catch (err) {
      throw new PushRejectedError("bad_bundle", "the sandbox's bundle is not a valid bundle on top of the mirror", { cause: err });
    }
    const refs = heads
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => l.split(" ")[1]);
    if (refs.length !== 1 || refs[0] !== want) {
      throw new PushRejectedError("extra_refs", `the bundle must carry exactly ${want}; it carries: ${refs.join(", ") || "nothing"}`);
    }
    await hostGit(["init", "--quiet", "--bare", quarantine]);
    await writeFile(join(quarantine, "objects", "info", "alternates"), `${resolve(opts.mirror, "objects")}\n`);
    try {
      await hostGit(["--git-dir", quarantine, "-c", "transfer.fsckObjects=true", "fetch", "--quiet", "--no-tags", file, `${want}:${incoming}`]);
      // Local transport through pack-objects: sends what `incoming` reaches and the mirror lacks, nothing more.
      await hostGit(["-c", "transfer.fsckObjects=true", "-C", opts.mirror, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", quarantine, `${incoming}:${incoming}`]);
    } catch (err) {
      throw new PushRejectedError("bad_bundle", "the sandbox's bundle failed git's object checks", { cause: err });
    }
    const newSha = (await hostGit(["-C", opts.mirror, "rev-parse", incoming])).trim();
    try {
      await hostGit(["-C", opts.mirror, "merge-base", "--is-ancestor", opts.expectedOld, newSha]);
    } catch {
      throw new PushRejectedError("not_fast_forward", `${want} at ${newSha.slice(0, 12)} is not a fast-forward of ${opts.expectedOld.slice(0, 12)}`);
    }
    const changes = await changedPaths(opts.mirror, opts.expectedOld, newSha);
    const changedFiles = changes.map((c) => c.path);
    if (opts.caps) {
      const refusal = commitRefusal(changes, opts.caps, await trackedBuildDirs(opts.mirror, opts.expectedOld, changes));
      if (refusal) throw new PushRejectedError("not_the_task", refusal);
    }
    let testNote: string | undefined;
    if (opts.guardTests) testNote = await guardTests(opts, newSha, changes);
    const workflows = changedFiles.filter(isWorkflowPath);
    if (workflows.length > 0 && !opts.allowWorkflowChanges) {
      throw new PushRejectedError("workflow_change", `changes under .github/workflows are not allowed for this repository: ${workflows.map((f) => JSON.stringify(f)).join(", ")}`);
    }
    const commits = Number((await hostGit(["-C", opts.mirror, "rev-list", "--count", `${opts.expectedOld}..${newSha}`])).trim());
    try {
      // No force: the remote itself refuses anything but a fast-forward of what it has.
      await hostGit(["-C", opts.mirror, "push", "--quiet", opts.remoteUrl, `${newSha}:${want}`], opts.token ? { token: opts.token } : {});
    } catch (err) {
      if (NO_WORKFLOWS_PERMISSION.test((err as Error).message)) {
        throw new PushRejectedError(
          "workflow_permission",
          "GitHub refused the push: the app lacks the `workflows` permission needed to change .github/workflows. " +
            "An admin can grant it in the app's settings (Permissions → Workflows: Read and write) and accept it on the installation; until then, leave .github/workflows unchanged.",
          { cause: err },
        );
      }
      throw new PushRejectedError("remote_rejected", `the remote refused the push of ${want}`, { cause: err });
    }
    return { newSha, commits, changedFiles, ...(testNote ? { testNote } : {}) };
  } finally {
    await hostGit(["-C", opts.mirror, "update-ref", "-d", incoming]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A CI fix (or conflict fix) may not weaken the tests. Cheapest first: files the PR added deleted by a
 * merge, a change to the runner's configuration (unless allowed), the text heuristic, then the runner's
 * own list of tests in the sandbox. Returns how the tests were judged.
 */
async function guardTests(opts: VerifyAndPushOptions, newSha: string, changes: Awaited<ReturnType<typeof changedPaths>>): Promise<string | undefined> {
  const from = opts.expectedOld;
  if (opts.guardTestsAcceptFrom) {
    const dropped = await deletedPrFiles(opts.mirror, from, opts.guardTestsAcceptFrom, changes);
    if (dropped.length > 0) {
      throw new PushRejectedError(
        "deletes_pr_files",
        `it deletes files this pull request added: ${dropped
          .slice(0, 10)
          .map((f) => JSON.stringify(f))
          .join(", ")}${dropped.length > 10 ? ", …" : ""}. Resolving a merge conflict keeps the pull request's own files`,
      );
    }
  }
  if (!opts.allowTestConfig) {
    const config = await fileChanges(opts.mirror, from, newSha, mayBeTestConfig, opts.guardTestsAcceptFrom);
    const refusal = config === null ? "it changes too many test configuration files to check on a CI fix" : testConfigRefusal(config);
    if (refusal) throw new PushRejectedError("test_config", refusal);
  }
  const tests = await testFileChanges(opts.mirror, from, newSha, opts.guardTestsAcceptFrom);
  if (tests === null)
    throw new PushRejectedError("weakens_tests", `it changes more than ${MAX_GUARDED_TEST_FILES} test files, too many to check on a CI fix; change only the tests the failure is about`);
  const weakened = testWeakening(tests);
  if (weakened) throw new PushRejectedError("weakens_tests", weakened);
  if (!opts.testInventory) return undefined;
  const verdict = await opts.testInventory(from, newSha);
  if (verdict.refusal) throw new PushRejectedError("weakens_tests", verdict.refusal);
  return verdict.note;
}

/**
 * Workflows live under `.github/workflows/`; compared case-folded (stricter than GitHub), and
 * replacing `.github` or `.github/workflows` itself (with a symlink, say) counts too.
 */
export function isWorkflowPath(path: string): boolean {
  const p = path.toLowerCase();
  return p === ".github" || p === ".github/workflows" || p.startsWith(".github/workflows/");
}
