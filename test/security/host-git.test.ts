import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";
import { shellQuote } from "../../src/shared/shell-quote.js";
import { ensureBaseCheckout } from "../../src/sandbox/workspace/base-checkout.js";
import { hostGit } from "../../src/sandbox/workspace/host-git.js";
import { ensureMirror, resolveRef } from "../../src/sandbox/workspace/mirror.js";
import { prepareWorkspace } from "../../src/sandbox/workspace/prepare-workspace.js";
import { DEFAULT_MAX_BUNDLE_BYTES, PushRejectedError, createPushBundle, isWorkflowPath, verifyAndPushBundle } from "../../src/sandbox/workspace/push.js";

const author = { GIT_AUTHOR_NAME: "Dev", GIT_AUTHOR_EMAIL: "dev@example.com", GIT_COMMITTER_NAME: "Dev", GIT_COMMITTER_EMAIL: "dev@example.com" };

/** Host git treats everything from a sandbox, and every repository, as hostile (issue 8, item 8). */
describe("host git against hostile bundles and repositories", () => {
  let tmp: string;
  let mirrorRoot: string;
  let origin: string;
  let mirror: string;
  let mainSha: string;
  let provider: LocalSandboxProvider;
  let n = 0;

  /** A clone of the mirror standing in for a sandbox's repository: a new commit on `branch` touching `files`. */
  async function attackerCommit(branch: string, files: Record<string, string>, links: Record<string, string> = {}): Promise<{ work: string; sha: string }> {
    const work = join(tmp, `work-${n++}`);
    await hostGit(["clone", "-q", mirror, work]);
    await hostGit(["-C", work, "checkout", "-q", "-b", branch]);
    for (const [path, content] of Object.entries(files)) {
      await mkdir(join(work, path, ".."), { recursive: true });
      await writeFile(join(work, path), content);
    }
    for (const [path, target] of Object.entries(links)) await symlink(target, join(work, path));
    await hostGit(["-C", work, "add", "-A"]);
    await hostGit(["-C", work, "commit", "-q", "-m", "attack"], { env: author });
    return { work, sha: (await hostGit(["-C", work, "rev-parse", "HEAD"])).trim() };
  }

  async function bundleOf(work: string, branch: string): Promise<Uint8Array> {
    const file = join(work, "..", `${branch.replace(/\//g, "_")}-${n++}.bundle`);
    await hostGit(["-C", work, "bundle", "create", "-q", file, `refs/heads/${branch}`, `^${mainSha}`]);
    return readFile(file);
  }

  const push = (bundle: Uint8Array, branch: string, extra: { maxBytes?: number } = {}) =>
    verifyAndPushBundle({ mirror, bundle, branch, expectedOld: mainSha, remoteUrl: origin, maxBytes: extra.maxBytes ?? DEFAULT_MAX_BUNDLE_BYTES });

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), "osw-hostgit-"));
    mirrorRoot = join(tmp, "mirrors");
    provider = new LocalSandboxProvider({ root: join(tmp, "sandboxes"), execTimeoutMs: 60_000, maxOutputBytes: 1 << 20 });
    const seed = join(tmp, "seed");
    await mkdir(join(seed, ".github", "workflows"), { recursive: true });
    await writeFile(join(seed, "README.md"), "# app\n");
    await writeFile(join(seed, ".github", "workflows", "ci.yml"), "on: push\n");
    await hostGit(["init", "-q", "-b", "main", seed]);
    await hostGit(["-C", seed, "add", "-A"]);
    await hostGit(["-C", seed, "commit", "-q", "-m", "initial"], { env: author });
    origin = join(tmp, "origin.git");
    await hostGit(["clone", "-q", "--bare", seed, origin]);
    mirror = await ensureMirror({ mirrorRoot, repo: "acme/app", remoteUrl: origin });
    mainSha = await resolveRef(mirror, "main");
  });
  afterAll(async () => {
    for (const s of await provider.list()) await provider.destroy(s.id);
    await rm(tmp, { recursive: true, force: true });
  });

  it("a bundle over SANDBOX_MAX_BUNDLE_MB is refused before git reads it, on the host and before the download", async () => {
    const { work } = await attackerCommit("open-swe/big", { "blob.bin": randomBytes(64 * 1024).toString("hex") });
    const bundle = await bundleOf(work, "open-swe/big");
    const err = await push(bundle, "open-swe/big", { maxBytes: 32 * 1024 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PushRejectedError);
    expect((err as PushRejectedError).reason).toBe("too_large");
    expect((err as Error).message).toMatch(/SANDBOX_MAX_BUNDLE_MB/);
    await expect(hostGit(["-C", mirror, "cat-file", "-e", `${(await hostGit(["-C", work, "rev-parse", "HEAD"])).trim()}^{commit}`])).rejects.toThrow();

    const sb = await provider.create({ network: false });
    await prepareWorkspace({ sandbox: sb, mirrorRoot, mirror, ref: "main", branch: "open-swe/big2", publicUrl: "https://github.com/acme/app.git" });
    const made = await sb.exec("head -c 200000 /dev/urandom > big.bin && git add -A && git commit -qm big");
    expect(made.exitCode, made.stderr).toBe(0);
    const inSandbox = await createPushBundle(sb, { branch: "open-swe/big2", since: mainSha, maxBytes: 64 * 1024 }).catch((e: unknown) => e);
    expect((inSandbox as PushRejectedError).reason).toBe("too_large");
    expect((await sb.exec("ls .git/open-swe-push.bundle")).exitCode).not.toBe(0);
  });

  it("50 MB of unreachable junk packed into a bundle never reaches the mirror or the remote", async () => {
    const { work, sha } = await attackerCommit("open-swe/pad", { "ok.txt": "fine\n" });
    const junk: string[] = [];
    for (let i = 0; i < 5; i++) {
      junk.push((await hostGit(["-C", work, "hash-object", "-w", "--stdin"], { stdin: randomBytes(10 * 1024 * 1024) })).trim());
    }
    // A hand-made bundle: the branch's one new commit plus the junk blobs, in one pack.
    const packBytes = execFileSync("git", ["-C", work, "-c", "pack.compression=0", "pack-objects", "--window=0", "--revs", "--stdout"], {
      input: `${sha}\n^${mainSha}\n${junk.join("\n")}\n`,
      maxBuffer: 1 << 27,
    });
    const header = Buffer.from(`# v2 git bundle\n-${mainSha} base\n${sha} refs/heads/open-swe/pad\n\n`);
    const bundle = Buffer.concat([header, packBytes]);
    expect(bundle.byteLength).toBeGreaterThan(50 * 1024 * 1024);

    const pushed = await push(bundle, "open-swe/pad");
    expect(pushed).toMatchObject({ newSha: sha, commits: 1, changedFiles: ["ok.txt"] });
    for (const blob of junk) {
      await expect(hostGit(["-C", mirror, "cat-file", "-e", blob])).rejects.toThrow();
      await expect(hostGit(["-C", origin, "cat-file", "-e", blob])).rejects.toThrow();
    }
    const sizes = await hostGit(["-C", mirror, "count-objects", "-v"]);
    const kib = Number(/size-pack: (\d+)/.exec(sizes)?.[1]) + Number(/size: (\d+)/.exec(sizes)?.[1]);
    expect(kib).toBeLessThan(1024);
  }, 90_000); // 50 MB hashed, bundled and fetched: 30 s was passed in a full run on a slow 2-core VM

  it.each([
    [".github/workflows/ci-é.yml", "non-ASCII"],
    [".github/workflows/a\tb.yml", "a tab"],
    ['.github/workflows/q"x.yml', "a quote"],
    [".github/workflows/nl\nx.yml", "a newline"],
    [".github/workflows/back\\slash.yml", "a backslash"],
    [".GitHub/Workflows/ci.yml", "other case"],
  ])("the workflow guard sees %j (%s)", async (path) => {
    const branch = `open-swe/wf-${n}`;
    const { work } = await attackerCommit(branch, { [path]: "on: push\njobs: {}\n" });
    const err = await push(await bundleOf(work, branch), branch).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PushRejectedError);
    expect((err as PushRejectedError).reason).toBe("workflow_change");
    expect((err as Error).message).toContain(JSON.stringify(path));
  });

  it.each([
    [".github/workflows/ci.yml", true],
    [".GITHUB/workflows/x.yaml", true],
    [".github", true],
    [".github/workflows", true],
    [".github/CODEOWNERS", false],
    ["docs/.github/workflows/x.yml", false],
    [".github/workflows-old/x.yml", false],
  ])("isWorkflowPath(%j) is %s", (path, expected) => {
    expect(isWorkflowPath(path)).toBe(expected);
  });

  it("a shared checkout never touches the file times of what a repository's symlinks point at", async () => {
    const victimDir = join(tmp, "victim");
    await mkdir(victimDir, { recursive: true });
    const victim = join(victimDir, "host-file");
    await writeFile(victim, "host data\n");
    const old = new Date("2001-02-03T04:05:06Z");
    await utimes(victim, old, old);
    await utimes(victimDir, old, old);
    const { sha } = await attackerCommit("open-swe/links", { "normal.txt": "x\n" }, { "to-file": victim, "to-dir": victimDir });
    // Land the commit in the mirror the way a pushed branch does.
    await hostGit(["-C", mirror, "fetch", "-q", join(tmp, `work-${n - 1}`), `refs/heads/open-swe/links:refs/heads/open-swe/links`]);
    const base = await ensureBaseCheckout({ mirrorRoot, mirror, sha, publicUrl: "https://github.com/acme/app.git" });
    expect(existsSync(join(base, "to-file"))).toBe(true);
    expect((await stat(victim)).mtime.toISOString()).toBe(old.toISOString());
    expect((await stat(victimDir)).mtime.toISOString()).toBe(old.toISOString());
  });

  it("hooks, fsmonitor and repository config never run on the host, even in a repository with hostile local config", async () => {
    const marker = join(tmp, "pwned-local");
    const repo = join(tmp, "hostile-local");
    await hostGit(["clone", "-q", mirror, repo]);
    const script = join(tmp, "evil.sh");
    await writeFile(script, `#!/bin/sh\necho "$0 $*" >> ${shellQuote(marker)}\n`);
    await chmod(script, 0o755);
    for (const hook of ["post-checkout", "pre-commit", "post-commit", "reference-transaction", "pre-push", "post-index-change"]) {
      await writeFile(join(repo, ".git", "hooks", hook), `#!/bin/sh\n${script} ${hook}\n`);
      await chmod(join(repo, ".git", "hooks", hook), 0o755);
    }
    await hostGit(["-C", repo, "config", "core.fsmonitor", script]);
    await hostGit(["-C", repo, "config", "core.hooksPath", join(repo, ".git", "hooks")]);
    await hostGit(["-C", repo, "config", "protocol.ext.allow", "always"]);
    await hostGit(["-C", repo, "checkout", "-q", "-b", "x"]);
    await writeFile(join(repo, "f.txt"), "f\n");
    await hostGit(["-C", repo, "add", "f.txt"]);
    await hostGit(["-C", repo, "commit", "-q", "-m", "f"], { env: author });
    await hostGit(["-C", repo, "status", "--porcelain"]);
    await hostGit(["-C", repo, "checkout", "-q", "main"]);
    await expect(hostGit(["-C", repo, "fetch", "-q", `ext::${script} fetch`, "main"])).rejects.toThrow(/transport 'ext' not allowed|not allowed/);
    expect(existsSync(marker)).toBe(false);
  });

  it("a sandbox's branch carrying a filter, hooks, fsmonitor and a nested bare repository executes nothing on the host", async () => {
    const marker = join(tmp, "pwned-sandbox");
    // Inside the sandbox the host path does not exist: these commands only leave a trace if the host runs them.
    const touch = `touch ${shellQuote(marker)} 2>/dev/null; cat`;
    const sb = await provider.create({ network: false });
    await prepareWorkspace({ sandbox: sb, mirrorRoot, mirror, ref: "main", branch: "open-swe/hostile", publicUrl: "https://github.com/acme/app.git" });
    const setup = [
      `printf '%s\\n' '* filter=evil diff=evil' > .gitattributes`,
      // A bare repository inside the tree: git would run its fsmonitor if host git ever started in it.
      `mkdir -p nested/objects nested/refs && printf 'ref: refs/heads/main\\n' > nested/HEAD && touch nested/objects/.keep nested/refs/.keep`,
      `printf '[core]\\n\\tbare = true\\n\\tfsmonitor = %s\\n' ${shellQuote(touch)} > nested/config`,
      `printf '[submodule "s"]\\n\\tpath = s\\n\\turl = ext::sh -c %s\\n' ${shellQuote(`touch% ${marker}`)} > .gitmodules`,
      `echo hi > hi.txt && git add -A && git commit -qm hostile`,
      // The sandbox's own repository config and hooks: what the host would pick up by running git in the workspace.
      `git config filter.evil.smudge ${shellQuote(touch)}`,
      `git config filter.evil.clean ${shellQuote(touch)}`,
      `git config diff.evil.textconv ${shellQuote(touch)}`,
      `git config core.fsmonitor ${shellQuote(touch)}`,
      `for h in post-checkout pre-push reference-transaction post-merge; do printf '#!/bin/sh\\n%s\\n' ${shellQuote(touch)} > .git/hooks/$h; chmod +x .git/hooks/$h; done`,
    ].join(" && ");
    const r = await sb.exec(setup);
    expect(r.exitCode, r.stderr).toBe(0);
    const bundle = await createPushBundle(sb, { branch: "open-swe/hostile", since: mainSha, maxBytes: DEFAULT_MAX_BUNDLE_BYTES });
    const pushed = await push(bundle!, "open-swe/hostile");
    // What the host does next with that branch: a shared checkout at it, another thread's workspace on it.
    await ensureBaseCheckout({ mirrorRoot, mirror, sha: pushed.newSha, publicUrl: "https://github.com/acme/app.git" });
    const other = await provider.create({ network: false });
    await prepareWorkspace({ sandbox: other, mirrorRoot, mirror, ref: pushed.newSha, branch: "open-swe/other", publicUrl: "https://github.com/acme/app.git", allowOverlay: false });
    expect(existsSync(marker)).toBe(false);
  });
});
