import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitAndPushTool } from "../../src/runs/commit-and-push-tool.js";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";
import { hostGit } from "../../src/sandbox/workspace/host-git.js";
import { ensureMirror, resolveRef } from "../../src/sandbox/workspace/mirror.js";
import { prepareWorkspace } from "../../src/sandbox/workspace/prepare-workspace.js";
import { DEFAULT_MAX_BUNDLE_BYTES } from "../../src/sandbox/workspace/push.js";
import { shareBranchWithSandbox } from "../../src/sandbox/workspace/share-branch.js";

const author = { GIT_AUTHOR_NAME: "Dev", GIT_AUTHOR_EMAIL: "dev@example.com", GIT_COMMITTER_NAME: "Dev", GIT_COMMITTER_EMAIL: "dev@example.com" };
const TESTS = 'it("a", () => {\n  expect(1).toBe(1);\n});\nit("b", () => {\n  expect(2).toBe(2);\n});\n';

/** A merge-conflict fix run: the base reaches the sandbox as origin/<base>, the merge commit is pushed (never forced). */
describe("merge-conflict fix: base shared into the sandbox, merge commit pushed through the guarded push", () => {
  let tmp: string;
  let mirrorRoot: string;
  let origin: string;
  let mirror: string;
  let branchHead: string;
  let provider: LocalSandboxProvider;

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), "osw-merge-"));
    mirrorRoot = join(tmp, "mirrors");
    provider = new LocalSandboxProvider({ root: join(tmp, "sandboxes"), execTimeoutMs: 60_000, maxOutputBytes: 1 << 20 });
    const seed = join(tmp, "seed");
    await mkdir(join(seed, "src"), { recursive: true });
    await writeFile(join(seed, "src", "greet.ts"), 'export const greet = "hello";\n');
    await writeFile(join(seed, "src", "greet.test.ts"), TESTS);
    const git = (...a: string[]) => hostGit(["-C", seed, ...a], { env: author });
    await hostGit(["init", "-q", "-b", "main", seed]);
    await git("add", "-A");
    await git("commit", "-q", "-m", "initial");
    // Our branch changes the line; the base changes the same line and drops one of its own tests.
    await git("checkout", "-q", "-b", "open-swe/t1");
    await writeFile(join(seed, "src", "greet.ts"), 'export const greet = "hello, world";\n');
    await git("commit", "-q", "-am", "ours");
    await git("checkout", "-q", "main");
    await writeFile(join(seed, "src", "greet.ts"), 'export const greet = "hi";\n');
    await writeFile(join(seed, "src", "greet.test.ts"), TESTS.split('it("b"')[0]!);
    await git("commit", "-q", "-am", "theirs");
    origin = join(tmp, "origin.git");
    await hostGit(["clone", "-q", "--bare", seed, origin]);
    mirror = await ensureMirror({ mirrorRoot, repo: "acme/app", remoteUrl: origin });
    branchHead = await resolveRef(mirror, "refs/heads/open-swe/t1");
  });
  afterAll(async () => {
    for (const s of await provider.list()) await provider.destroy(s.id);
    await rm(tmp, { recursive: true, force: true });
  });

  async function conflictedWorkspace() {
    const sb = await provider.create({ network: false });
    await prepareWorkspace({ sandbox: sb, mirrorRoot, mirror, ref: "refs/heads/open-swe/t1", branch: "open-swe/t1", publicUrl: "https://github.com/acme/app.git" });
    const shared = await shareBranchWithSandbox(sb, mirror, "main", branchHead);
    expect(shared).toBe(await resolveRef(mirror, "refs/heads/main"));
    const merge = await sb.exec("git -c user.name=a -c user.email=a@b merge --no-ff origin/main");
    expect(merge.exitCode).not.toBe(0);
    expect(merge.stdout + merge.stderr).toMatch(/CONFLICT.*greet\.ts/);
    const resolve = await sb.exec(`printf 'export const greet = "hi, world";\\n' > src/greet.ts && git add -A && git -c user.name=a -c user.email=a@b commit -q --no-edit`);
    expect(resolve.exitCode, resolve.stderr).toBe(0);
    return sb;
  }
  const tool = (sb: Awaited<ReturnType<typeof conflictedWorkspace>>, acceptFrom?: string) =>
    commitAndPushTool(
      { branch: "open-swe/t1", requester: { login: "dana", id: 7 }, state: { replied: false } },
      {
        sandbox: sb,
        mirror,
        remoteUrl: origin,
        expectedOld: () => branchHead,
        onPushed: async () => undefined,
        allowWorkflowChanges: false,
        maxBundleBytes: DEFAULT_MAX_BUNDLE_BYTES,
        caps: { maxFiles: 100, maxBytes: 1 << 20 },
        guardTests: true,
        ...(acceptFrom ? { guardTestsAcceptFrom: acceptFrom } : {}),
      },
    );

  it("without the base accepted, the base's own dropped test would be blamed on the run", async () => {
    const sb = await conflictedWorkspace();
    expect(String(await tool(sb).invoke({ message: "Merge main" }))).toMatch(/weakens_tests.*removes 1 test case/);
    await provider.destroy(sb.id);
  });

  it("the merge commit is pushed as a fast-forward with both parents; test files as the base has them are not the run's", async () => {
    const sb = await conflictedWorkspace();
    expect(String(await tool(sb, "refs/heads/main").invoke({ message: "Merge main" }))).toMatch(/^Pushed \d+ commit\(s\)/);
    const pushed = (await hostGit(["-C", origin, "rev-parse", "refs/heads/open-swe/t1"])).trim();
    const parents = (await hostGit(["-C", origin, "rev-list", "--parents", "-n", "1", pushed])).trim().split(" ").slice(1);
    expect(parents).toEqual([branchHead, await resolveRef(mirror, "refs/heads/main")]);
    expect(await hostGit(["-C", origin, "show", `${pushed}:src/greet.ts`])).toBe('export const greet = "hi, world";\n');
  });

  it("nothing to share when the base is already in the branch", async () => {
    const sb = await provider.create({ network: false });
    await prepareWorkspace({ sandbox: sb, mirrorRoot, mirror, ref: "refs/heads/main", branch: "open-swe/t2", publicUrl: "https://github.com/acme/app.git" });
    expect(await shareBranchWithSandbox(sb, mirror, "main", await resolveRef(mirror, "refs/heads/main"))).toBeNull();
    await expect(shareBranchWithSandbox(sb, mirror, "main; touch /tmp/x", branchHead)).rejects.toThrow(/not a branch name/);
  });
});
