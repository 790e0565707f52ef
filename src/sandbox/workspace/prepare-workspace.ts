import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { cp, lstat, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { join, posix } from "node:path";
import { tmpdir } from "node:os";
import { LocalSandbox } from "../providers/local.js";
import { shellQuote } from "../../shared/shell-quote.js";
import { SandboxError, type Sandbox } from "../types.js";
import { ensureBaseCheckout } from "./base-checkout.js";
import { hostGit } from "./host-git.js";
import { BOT_IDENTITY, type GitPerson } from "./identity.js";
import { resolveRef } from "./mirror.js";

export interface PrepareWorkspaceOptions {
  sandbox: Sandbox;
  mirrorRoot: string;
  /** Path of the host mirror (from ensureMirror). */
  mirror: string;
  /** What to check out: the default branch, a PR head (`refs/pull/N/head`), or a sha. */
  ref: string;
  /** `ref`'s commit when the caller already resolved it in the mirror (saves a git process). */
  sha?: string;
  /** Local branch the run commits on. */
  branch: string;
  /** Credential-free URL recorded as `origin` inside the sandbox. */
  publicUrl: string;
  identity?: GitPerson;
  /**
   * Local provider: false takes the copied-clone fallback even where overlayfs works (a worker that
   * is not root takes it anyway, because the mount fails). Default true.
   */
  allowOverlay?: boolean;
  /** What `reuseWorkspace` already answered for this sandbox (a caller runs it while the mirror fetches). */
  reused?: boolean;
}

export interface PreparedWorkspace {
  sha: string;
  branch: string;
  /** overlay: copy-on-write over a shared checkout; clone: a clone with its own copy of the objects; bundle: uploaded; existing: already there. */
  mode: "overlay" | "clone" | "bundle" | "existing";
  dir: string;
  readyMs: number;
}

/**
 * Puts the repository at `ref` into the sandbox's workdir, on `branch`, with the bot's identity.
 * No credential is involved: everything comes from the host mirror.
 */
export async function prepareWorkspace(opts: PrepareWorkspaceOptions): Promise<PreparedWorkspace> {
  const started = performance.now();
  const { sandbox } = opts;
  const sha = opts.sha ?? (await resolveRef(opts.mirror, opts.ref));
  let mode: PreparedWorkspace["mode"];
  let headWritten = false;

  assertBranchName(opts.branch);
  if (opts.reused ?? (await reuseWorkspace(sandbox, opts.identity))) mode = "existing";
  else if (sandbox instanceof LocalSandbox) ({ mode, headWritten } = await prepareLocal(sandbox, opts, sha));
  else mode = await prepareByBundle(sandbox, opts, sha);

  if (mode === "overlay") {
    // Put HEAD on the branch with two file writes instead of a git process. They run inside the
    // sandbox: a sandbox that replaced its `.git` with a link (and so came back here) only redirects
    // them within its own view. A new sandbox's upper layer got them from the host before its mount
    // (`headWritten`). The base already carries the bot identity.
    if (!headWritten) await checkoutBranchFiles(sandbox, opts.branch, sha);
    if (opts.identity) await setWorkspaceIdentity(sandbox, opts.identity);
  } else if (mode !== "existing") {
    const id = opts.identity ?? BOT_IDENTITY;
    const setup = [
      `git checkout -q -B ${shellQuote(opts.branch)} ${sha}`,
      `git config user.name ${shellQuote(id.name)}`,
      `git config user.email ${shellQuote(id.email)}`,
      `git remote set-url origin ${shellQuote(opts.publicUrl)} 2>/dev/null || git remote add origin ${shellQuote(opts.publicUrl)}`,
    ].join(" && ");
    const r = await sandbox.exec(setup, { timeoutMs: 120_000 });
    if (r.exitCode !== 0) throw new SandboxError("exec_failed", `workspace setup failed: ${r.stderr.trim()}`);
  }
  return { sha, branch: opts.branch, mode, dir: sandbox.workdir, readyMs: performance.now() - started };
}

/**
 * A sandbox that already holds the repository (a thread's later run) gets the identity back (the agent
 * may have changed it) and is used as it is: true. False: the workspace is still to be prepared. Needs
 * nothing from the mirror, so a run does this while the mirror fetches.
 */
export async function reuseWorkspace(sandbox: Sandbox, identity?: GitPerson): Promise<boolean> {
  if (!(await workspaceHasRepo(sandbox))) return false;
  await setWorkspaceIdentity(sandbox, identity ?? BOT_IDENTITY);
  return true;
}

/** Whether the sandbox already holds the repository (a thread's later run); `reuseWorkspace` without the identity. */
export async function workspaceHasRepo(sandbox: Sandbox): Promise<boolean> {
  if (sandbox instanceof LocalSandbox) return (await lstat(join(sandbox.hostWorkspace, ".git")).catch(() => undefined))?.isDirectory() === true;
  const r = await sandbox.exec("git rev-parse --is-inside-work-tree", { timeoutMs: 30_000 });
  return r.exitCode === 0 && r.stdout.trim() === "true";
}

/** A conservative subset of git's ref-name rules (no `..`, no leading `-` or `/`, no `.lock`). */
function assertBranchName(branch: string): void {
  const ok = /^[A-Za-z0-9._][A-Za-z0-9._\/-]*$/.test(branch) && !/\.\.|\/\/|\/$|\.lock$|\/\.|@\{/.test(branch);
  if (!ok) throw new SandboxError("invalid", `invalid branch name "${branch}"`);
}

async function checkoutBranchFiles(sandbox: Sandbox, branch: string, sha: string): Promise<void> {
  const ref = `.git/refs/heads/${branch}`;
  const r = await sandbox.exec(`mkdir -p ${shellQuote(posix.dirname(ref))} && printf '%s\\n' ${sha} > ${shellQuote(ref)} && printf 'ref: refs/heads/%s\\n' ${shellQuote(branch)} > .git/HEAD`);
  if (r.exitCode !== 0) throw new SandboxError("exec_failed", `cannot put the workspace on ${branch}: ${r.stderr.trim()}`);
}

/** The identity is set on every run: a reused workspace may have been touched by an older version. */
export async function setWorkspaceIdentity(sandbox: Sandbox, id: GitPerson): Promise<void> {
  const r = await sandbox.exec(`git config user.name ${shellQuote(id.name)} && git config user.email ${shellQuote(id.email)}`);
  if (r.exitCode !== 0) throw new SandboxError("exec_failed", `cannot set git identity: ${r.stderr.trim()}`);
}

async function prepareLocal(sandbox: LocalSandbox, opts: PrepareWorkspaceOptions, sha: string): Promise<{ mode: "overlay" | "clone"; headWritten: boolean }> {
  const base = await ensureBaseCheckout({ mirrorRoot: opts.mirrorRoot, mirror: opts.mirror, sha, publicUrl: opts.publicUrl });
  if (opts.allowOverlay !== false) {
    try {
      return { mode: "overlay", headWritten: await sandbox.mountBase(base, { branch: opts.branch, sha }) };
    } catch {
      // No overlayfs here (not root): fall through to a clone of the sandbox's own.
    }
  }
  // The base's objects are hard links into the mirror, so neither hard links (`clone --local`) nor a
  // worktree or alternates into the base may reach the sandbox: it could rewrite an object in place
  // under every other thread. The objects are copied (reflinked where the filesystem can: instant
  // and still copy-on-write), so nothing writable here shares an inode with the mirror or the base.
  const host = sandbox.hostWorkspace;
  for (const entry of await readdir(host)) await rm(`${host}/${entry}`, { recursive: true, force: true });
  await hostGit(["clone", "--shared", "--no-checkout", "--quiet", base, host]);
  const objects = join(host, ".git", "objects");
  await cp(join(base, ".git", "objects"), objects, { recursive: true, force: true, mode: constants.COPYFILE_FICLONE });
  await rm(join(objects, "info", "alternates"), { force: true });
  // The directory is the sandbox user's (a root worker's sandboxes are not root); the clone is ours
  // until it is handed over.
  await hostGit(["-c", `safe.directory=${host}`, "-C", host, "checkout", "--quiet", "--detach", sha]);
  await sandbox.claim(host);
  return { mode: "clone", headWritten: false };
}

async function prepareByBundle(sandbox: Sandbox, opts: PrepareWorkspaceOptions, sha: string): Promise<"bundle"> {
  const tmpRef = `refs/open-swe/export-${randomBytes(6).toString("hex")}`;
  await hostGit(["-C", opts.mirror, "update-ref", tmpRef, sha]);
  let bundle: Buffer;
  try {
    const dir = await mkdtemp(`${tmpdir()}/osw-bundle-`);
    try {
      await hostGit(["-C", opts.mirror, "bundle", "create", "--quiet", `${dir}/repo.bundle`, tmpRef]);
      bundle = await readFile(`${dir}/repo.bundle`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  } finally {
    await hostGit(["-C", opts.mirror, "update-ref", "-d", tmpRef]).catch(() => undefined);
  }
  const path = `${sandbox.workdir}/.open-swe-import.bundle`;
  const [up] = await sandbox.upload([{ path, content: bundle }]);
  if (up?.error) throw new SandboxError("exec_failed", `cannot upload the repository bundle: ${up.error}`);
  const r = await sandbox.exec(`git init -q . && git fetch -q ${shellQuote(path)} ${tmpRef}:refs/remotes/origin/base && rm -f ${shellQuote(path)} && git checkout -q --detach ${sha}`, {
    timeoutMs: 10 * 60_000,
  });
  if (r.exitCode !== 0) throw new SandboxError("exec_failed", `cannot unpack the repository in the sandbox: ${r.stderr.trim()}`);
  return "bundle";
}
