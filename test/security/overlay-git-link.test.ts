import { chmod, lstat, mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";
import { hostGit } from "../../src/sandbox/workspace/host-git.js";
import { ensureMirror, resolveRef } from "../../src/sandbox/workspace/mirror.js";
import { prepareWorkspace } from "../../src/sandbox/workspace/prepare-workspace.js";

const author = { GIT_AUTHOR_NAME: "Dev", GIT_AUTHOR_EMAIL: "dev@example.com", GIT_COMMITTER_NAME: "Dev", GIT_COMMITTER_EMAIL: "dev@example.com" };

/**
 * A sandbox that swaps its `.git` for a link to a host path, then gets its workspace prepared again
 * (the next run on the thread): the worker (root) fixes up the overlay's upper layer, and must never
 * chown or chmod what the link points at.
 */
describe("a sandbox's .git link never points the worker's chown at a host path", () => {
  let tmp: string;
  let mirrorRoot: string;
  let mirror: string;
  let sha: string;
  let provider: LocalSandboxProvider;

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), "osw-gitlink-"));
    mirrorRoot = join(tmp, "mirrors");
    provider = new LocalSandboxProvider({ root: join(tmp, "sandboxes"), execTimeoutMs: 60_000, maxOutputBytes: 1 << 20 });
    const seed = join(tmp, "seed");
    await mkdir(seed, { recursive: true });
    await hostGit(["init", "-q", "-b", "main", seed]);
    await writeFile(join(seed, "README.md"), "# app\n");
    await hostGit(["-C", seed, "add", "-A"]);
    await hostGit(["-C", seed, "commit", "-q", "-m", "one"], { env: author });
    mirror = await ensureMirror({ mirrorRoot, repo: "acme/link", remoteUrl: seed });
    sha = await resolveRef(mirror, "main");
  });
  afterAll(async () => {
    for (const s of await provider.list()) await provider.destroy(s.id);
    await rm(tmp, { recursive: true, force: true });
  });

  it("the host directory keeps its owner and mode, and the workspace is on the branch again", async () => {
    if (process.getuid?.() !== 0) return expect.fail("this attack needs the root worker the overlay path runs as");
    const victim = join(tmp, "victim");
    await mkdir(victim);
    await chmod(victim, 0o755);
    const sb = await provider.create({ network: false });
    const opts = { sandbox: sb, mirrorRoot, mirror, ref: "main", branch: "open-swe/link", publicUrl: "https://github.com/acme/link.git" };
    expect((await prepareWorkspace(opts)).mode).toBe("overlay");
    // Paths in a link are resolved by whoever follows it: the worker, on the host, would reach `victim`.
    const r = await sb.exec(`rm -rf .git && ln -s ${victim} .git && ls -la`);
    expect(r.exitCode).toBe(0);
    expect((await lstat(join(sb.hostWorkspace, ".git"))).isSymbolicLink()).toBe(true);

    const again = await prepareWorkspace(opts).catch((err: unknown) => err);
    const st = await stat(victim);
    expect({ uid: st.uid, mode: st.mode & 0o7777 }).toEqual({ uid: 0, mode: 0o755 });
    expect(again).toMatchObject({ mode: "overlay" });
    expect((await sb.exec("git symbolic-ref HEAD && git rev-parse HEAD")).stdout).toBe(`refs/heads/open-swe/link\n${sha}\n`);
  });
});
