import { lstat, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalSandboxProvider, type LocalSandbox } from "../../src/sandbox/providers/local.js";
import { hostGit } from "../../src/sandbox/workspace/host-git.js";
import { ensureMirror, resolveRef } from "../../src/sandbox/workspace/mirror.js";
import { prepareWorkspace } from "../../src/sandbox/workspace/prepare-workspace.js";

const author = { GIT_AUTHOR_NAME: "Dev", GIT_AUTHOR_EMAIL: "dev@example.com", GIT_COMMITTER_NAME: "Dev", GIT_COMMITTER_EMAIL: "dev@example.com" };

/** Rewrites, in place (same inode, no truncation), every object file this repository can reach, alternates included. */
const POISON = String.raw`
set -e
dirs=.git/objects
if [ -f .git/objects/info/alternates ]; then dirs="$dirs $(cat .git/objects/info/alternates)"; fi
n=0
for f in $(find $dirs -type f); do
  chmod u+w "$f" 2>/dev/null || true
  if printf 'POISONPOISONPOISON' | dd of="$f" conv=notrunc bs=1 seek=12 2>/dev/null; then n=$((n+1)); fi
done
echo "$n"
`;

async function inodes(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) {
        const st = await lstat(p);
        out.set(`${st.dev}:${st.ino}`, p);
      }
    }
  };
  await walk(root);
  return out;
}

/** One thread can never change what another thread or the mirror sees (issue 8, item 3). */
describe("a sandbox that rewrites every object it can reach poisons nothing outside itself", () => {
  let tmp: string;
  let mirrorRoot: string;
  let mirror: string;
  let sha: string;
  let provider: LocalSandboxProvider;

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), "osw-poison-"));
    mirrorRoot = join(tmp, "mirrors");
    provider = new LocalSandboxProvider({ root: join(tmp, "sandboxes"), execTimeoutMs: 60_000, maxOutputBytes: 1 << 20 });
    const seed = join(tmp, "seed");
    await mkdir(join(seed, "src"), { recursive: true });
    await hostGit(["init", "-q", "-b", "main", seed]);
    // Two commits fetched separately: the mirror then holds both packs and loose objects.
    await writeFile(join(seed, "src", "a.ts"), "export const a = 1;\n".repeat(50));
    await hostGit(["-C", seed, "add", "-A"]);
    await hostGit(["-C", seed, "commit", "-q", "-m", "one"], { env: author });
    mirror = await ensureMirror({ mirrorRoot, repo: "acme/poison", remoteUrl: seed });
    await writeFile(join(seed, "src", "b.ts"), "export const b = 2;\n".repeat(50));
    await hostGit(["-C", seed, "add", "-A"]);
    await hostGit(["-C", seed, "commit", "-q", "-m", "two"], { env: author });
    await ensureMirror({ mirrorRoot, repo: "acme/poison", remoteUrl: seed });
    sha = await resolveRef(mirror, "main");
  });
  afterAll(async () => {
    for (const s of await provider.list()) await provider.destroy(s.id);
    await rm(tmp, { recursive: true, force: true });
  });

  const prepare = async (branch: string, allowOverlay: boolean) => {
    const sb = await provider.create({ network: false });
    const ws = await prepareWorkspace({ sandbox: sb, mirrorRoot, mirror, ref: "main", branch, publicUrl: "https://github.com/acme/poison.git", allowOverlay });
    return { sb, ws };
  };

  const expectClean = async (sb: LocalSandbox) => {
    const fsck = await sb.exec("git fsck --full --strict && git cat-file -p HEAD:src/a.ts | head -1");
    expect(fsck.exitCode, fsck.stderr).toBe(0);
    expect(fsck.stdout).toContain("export const a = 1;");
  };

  it.each([
    ["clone", false],
    ["overlay", true],
  ] as const)("%s workspace: every object rewritten in one thread; the next thread and the mirror stay clean", async (mode, allowOverlay) => {
    const { sb: attacker, ws } = await prepare(`open-swe/attacker-${mode}`, allowOverlay);
    expect(ws.mode).toBe(mode);
    const poisoned = await attacker.exec(POISON);
    expect(poisoned.exitCode, poisoned.stderr).toBe(0);
    if (mode === "clone") {
      expect(Number(poisoned.stdout.trim())).toBeGreaterThan(2);
      // The attack worked on the attacker's own copy.
      expect((await attacker.exec("git fsck --full")).exitCode).not.toBe(0);
    } else {
      // Overlay: the shared objects are hard links into the mirror, left root-owned and read-only, so the
      // sandbox user cannot even open them for writing (a copy-up would be its own anyway).
      expect(Number(poisoned.stdout.trim())).toBe(0);
    }

    const { sb: victim } = await prepare(`open-swe/victim-${mode}`, allowOverlay);
    await expectClean(victim);
    await hostGit(["-C", mirror, "fsck", "--full", "--strict"]);
    const base = join(mirrorRoot, "bases", "acme__poison", sha);
    await hostGit(["-C", base, "fsck", "--full", "--strict"]);

    if (mode === "clone") {
      // No writable file of a fallback workspace shares an inode with the mirror, the shared checkout or another sandbox.
      const shared = new Map([...(await inodes(join(mirrorRoot))), ...(await inodes(victim.hostWorkspace))]);
      for (const [key, path] of await inodes(attacker.hostWorkspace)) expect(shared.get(key), path).toBeUndefined();
    }
  });
});
