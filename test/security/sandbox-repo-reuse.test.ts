import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureSandboxForThread, sandboxRepoKey, threadSandboxKey, type SandboxCache } from "../../src/sandbox/lifecycle.js";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";
import { hostGit } from "../../src/sandbox/workspace/host-git.js";
import { ensureMirror } from "../../src/sandbox/workspace/mirror.js";
import { prepareWorkspace } from "../../src/sandbox/workspace/prepare-workspace.js";
import type { Sandbox } from "../../src/sandbox/types.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const author = { GIT_AUTHOR_NAME: "Dev", GIT_AUTHOR_EMAIL: "dev@example.com", GIT_COMMITTER_NAME: "Dev", GIT_COMMITTER_EMAIL: "dev@example.com" };
const SECRET = "SECRET-7f3a-do-not-leak";

/** Finding 1 of issue 21: a thread record pointing at another repository's sandbox must never hand it to a run. */
describe("a sandbox is never reused for another repository (real bubblewrap)", () => {
  let tmp: string;
  let mirrorRoot: string;
  let provider: LocalSandboxProvider;
  const mirrors: Record<string, string> = {};

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), "osw-repo-reuse-"));
    mirrorRoot = join(tmp, "mirrors");
    provider = new LocalSandboxProvider({ root: join(tmp, "sandboxes"), execTimeoutMs: 60_000, maxOutputBytes: 1 << 20 });
    for (const [repo, file, text] of [
      ["octo/secret", "credentials.txt", SECRET],
      ["octo/public", "README.md", "public readme"],
    ] as const) {
      const seed = join(tmp, "seed", repo);
      await mkdir(seed, { recursive: true });
      await hostGit(["init", "-q", "-b", "main", seed]);
      await writeFile(join(seed, file), `${text}\n`);
      await hostGit(["-C", seed, "add", "-A"]);
      await hostGit(["-C", seed, "commit", "-q", "-m", "init"], { env: author });
      mirrors[repo] = await ensureMirror({ mirrorRoot, repo, remoteUrl: seed });
    }
  });
  afterAll(async () => {
    for (const s of await provider.list()) await provider.destroy(s.id);
    await rm(tmp, { recursive: true, force: true });
  });

  const ensure = (keyPrefix: string, threadId: string, repo: string, cache: SandboxCache) =>
    ensureSandboxForThread({ redis: testRedis(), keyPrefix, threadId, repo, provider, creationTimeoutMs: 30_000, cache, createOptions: { network: false } });
  const prepare = (sandbox: Sandbox, repo: string, branch: string) =>
    prepareWorkspace({ sandbox, mirrorRoot, mirror: mirrors[repo]!, ref: "main", branch, publicUrl: `https://github.com/${repo}.git` });
  /** Everything the run can read: its workspace and its home. */
  const sees = async (sandbox: Sandbox) => (await sandbox.exec(`grep -rs ${SECRET} . "$HOME" /tmp; ls -a; git log --oneline -1 || true`)).stdout;

  /** The victim's thread: octo/secret, its workspace prepared and extended with uncommitted work. */
  const victim = async (keyPrefix: string) => {
    const cache: SandboxCache = new Map();
    const { sandbox } = await ensure(keyPrefix, "thread-secret", "octo/secret", cache);
    await prepare(sandbox, "octo/secret", "open-swe/secret-work");
    await sandbox.exec(`echo ${SECRET} > notes.txt`);
    expect(await sees(sandbox)).toContain(SECRET);
    return { sandbox, cache };
  };

  it("a thread record pointing at octo/secret's sandbox: the octo/public run gets a new sandbox without any of its files, the old one is destroyed", async () => {
    const keyPrefix = uniquePrefix();
    const { sandbox: secret } = await victim(keyPrefix);
    // The attack: the octo/public thread's record names the octo/secret sandbox.
    await testRedis().set(threadSandboxKey(keyPrefix, "thread-public"), secret.id);
    const run = await ensure(keyPrefix, "thread-public", "octo/public", new Map());
    expect(run.outcome).toBe("replaced");
    expect(run.sandbox.id).not.toBe(secret.id);
    const ws = await prepare(run.sandbox, "octo/public", "open-swe/public-work");
    expect(ws.mode).not.toBe("existing");
    const seen = await sees(run.sandbox);
    expect(seen).toContain("README.md");
    expect(seen).not.toContain(SECRET);
    expect(seen).not.toContain("credentials.txt");
    expect((await provider.list()).map((s) => s.id)).not.toContain(secret.id);
    expect(await testRedis().get(sandboxRepoKey(keyPrefix, run.sandbox.id))).toBe("octo/public");
  });

  it("the same thread asked for another repository while its handle is cached in this worker: replaced too", async () => {
    const keyPrefix = uniquePrefix();
    const { sandbox: secret, cache } = await victim(keyPrefix);
    const run = await ensure(keyPrefix, "thread-secret", "octo/public", cache);
    expect(run.outcome).toBe("replaced");
    await prepare(run.sandbox, "octo/public", "open-swe/public-work");
    expect(await sees(run.sandbox)).not.toContain(SECRET);
    expect((await provider.list()).map((s) => s.id)).not.toContain(secret.id);
  });

  it("a sandbox with no recorded repository (made before the upgrade) is not trusted: replaced", async () => {
    const keyPrefix = uniquePrefix();
    const { sandbox: secret } = await victim(keyPrefix);
    await testRedis().del(sandboxRepoKey(keyPrefix, secret.id));
    const run = await ensure(keyPrefix, "thread-secret", "octo/secret", new Map());
    expect(run.outcome).toBe("replaced");
    expect(await sees(run.sandbox)).not.toContain(SECRET);
  });

  it("the same repository keeps its sandbox and its work", async () => {
    const keyPrefix = uniquePrefix();
    const { sandbox: secret } = await victim(keyPrefix);
    const again = await ensure(keyPrefix, "thread-secret", "Octo/Secret", new Map());
    expect(again).toMatchObject({ outcome: "reconnected" });
    expect(again.sandbox.id).toBe(secret.id);
    expect(await sees(again.sandbox)).toContain(SECRET);
  });
});
