import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { commitAndPushTool } from "../../src/runs/commit-and-push-tool.js";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";
import { hostGit } from "../../src/sandbox/workspace/host-git.js";
import { ensureMirror, resolveRef } from "../../src/sandbox/workspace/mirror.js";
import { prepareWorkspace } from "../../src/sandbox/workspace/prepare-workspace.js";
import { DEFAULT_MAX_BUNDLE_BYTES } from "../../src/sandbox/workspace/push.js";

const author = { GIT_AUTHOR_NAME: "Dev", GIT_AUTHOR_EMAIL: "dev@example.com", GIT_COMMITTER_NAME: "Dev", GIT_COMMITTER_EMAIL: "dev@example.com" };
const SUM_TEST = `import { expect, it } from "vitest";
import { sum } from "./sum";
it("adds", () => {
  expect(sum(1, 2)).toBe(3);
});
it("negatives", () => {
  expect(sum(-1, -2)).toBe(-3);
});
`;
const CALC_TEST = `from calc import add

def test_add():
    assert add(1, 2) == 3
`;

/**
 * A CI fix run's model wants CI green; the cheapest green is a skipped or deleted test. The host refuses
 * such a push on a CI fix run (`guardTests`), whatever the model did inside its sandbox, and says why.
 */
describe("a hostile CI fix greens CI by weakening the tests: the host refuses the push", () => {
  let tmp: string;
  let mirrorRoot: string;
  let origin: string;
  let mirror: string;
  let mainSha: string;
  let provider: LocalSandboxProvider;
  let n = 0;

  /** One fix run: a sandbox on a fresh branch, the model's shell commands, then its commit_and_push. */
  async function fixRun(commands: string, opts: { guardTests?: boolean; message?: string } = {}) {
    const branch = `open-swe/fix-${n++}`;
    const sb = await provider.create({ network: false });
    await prepareWorkspace({ sandbox: sb, mirrorRoot, mirror, ref: "main", branch, publicUrl: "https://github.com/acme/app.git" });
    const r = await sb.exec(commands);
    expect(r.exitCode, r.stderr).toBe(0);
    let old = mainSha;
    const push = commitAndPushTool(
      { branch, requester: { login: "dana", id: 7 }, state: { replied: false } },
      {
        sandbox: sb,
        mirror,
        remoteUrl: origin,
        expectedOld: () => old,
        onPushed: async (sha) => void (old = sha),
        allowWorkflowChanges: false,
        maxBundleBytes: DEFAULT_MAX_BUNDLE_BYTES,
        caps: { maxFiles: 100, maxBytes: 1 << 20 },
        ...(opts.guardTests === false ? {} : { guardTests: true }),
      },
    );
    const said = String(await push.invoke({ message: opts.message ?? "Fix CI" }));
    const remote = await hostGit(["-C", origin, "rev-parse", "--verify", "--quiet", `refs/heads/${branch}`]).then((s) => s.trim(), () => null);
    return { said, remote, sb, push };
  }

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), "osw-weaken-"));
    mirrorRoot = join(tmp, "mirrors");
    provider = new LocalSandboxProvider({ root: join(tmp, "sandboxes"), execTimeoutMs: 60_000, maxOutputBytes: 1 << 20 });
    const seed = join(tmp, "seed");
    await mkdir(join(seed, "src"), { recursive: true });
    await mkdir(join(seed, "tests"), { recursive: true });
    await writeFile(join(seed, "src", "sum.ts"), "export const sum = (a: number, b: number) => a - b;\n");
    await writeFile(join(seed, "src", "sum.test.ts"), SUM_TEST);
    await writeFile(join(seed, "tests", "test_calc.py"), CALC_TEST);
    await hostGit(["init", "-q", "-b", "main", seed]);
    await hostGit(["-C", seed, "add", "-A"]);
    await hostGit(["-C", seed, "commit", "-q", "-m", "initial"], { env: author });
    origin = join(tmp, "origin.git");
    await hostGit(["clone", "-q", "--bare", seed, origin]);
    mirror = await ensureMirror({ mirrorRoot, repo: "acme/app", remoteUrl: origin });
    mainSha = await resolveRef(mirror, "main");
  });
  const destroyAll = async () => {
    for (const s of await provider.list()) await provider.destroy(s.id);
  };
  afterEach(destroyAll);
  afterAll(async () => {
    await destroyAll();
    await rm(tmp, { recursive: true, force: true });
  });

  it.each<[string, string, RegExp]>([
    ["it.skip on the red test", `sed -i 's/^it("negatives"/it.skip("negatives"/' src/sum.test.ts`, /adds a skip marker \(\.skip\(\) in src\/sum\.test\.ts/],
    ["deleting the test file", "git rm -q src/sum.test.ts", /removes 2 test case\(s\): src\/sum\.test\.ts \(2 → 0\)/],
    ["commenting the red test out", `sed -i '6,8s|^|// |' src/sum.test.ts`, /removes 1 test case\(s\)/],
    ["deleting the failing assertion", `sed -i '/sum(-1, -2)/d' src/sum.test.ts`, /removes 1 assertion/],
    ["renaming the test file out of the runner's reach", "git mv src/sum.test.ts src/sum.test.ts.bak", /removes 2 test case\(s\)/],
    ["@pytest.mark.skip", `sed -i 's/^def test_add/@pytest.mark.skip\\ndef test_add/' tests/test_calc.py`, /@pytest\.mark\.skip/],
    ["a real fix in one commit, the skip hidden in a second", `sed -i 's/a - b/a + b/' src/sum.ts && git commit -qam fix && sed -i 's/^it("adds"/it.skip("adds"/' src/sum.test.ts`, /skip marker/],
  ])("%s is refused, nothing reaches the remote, and the model is told why and how to undo", async (_n, commands, reason) => {
    const { said, remote, sb, push } = await fixRun(commands);
    expect(said).toMatch(/^Push refused \(weakens_tests\): nothing was pushed/);
    expect(said).toMatch(reason);
    expect(said).toMatch(/git reset --soft [0-9a-f]{40}/);
    expect(remote).toBeNull();
    // The guidance works: undo, restore the tests, fix the code, push.
    const undo = await sb.exec(`git reset -q --soft ${mainSha} && git reset -q && git checkout ${mainSha} -- src tests && git clean -qfd && sed -i 's/a - b/a + b/' src/sum.ts`);
    expect(undo.exitCode, undo.stderr).toBe(0);
    expect(String(await push.invoke({ message: "Fix sum" }))).toMatch(/^Pushed 1 commit\(s\)/);
  });

  it("a fix of the code itself (and a corrected expectation, and a new test) is pushed", async () => {
    const { said, remote } = await fixRun(
      `sed -i 's/a - b/a + b/' src/sum.ts && sed -i 's/toBe(-3)/toBe(-3.0)/' src/sum.test.ts && printf 'it("zero", () => {\\n  expect(sum(0, 0)).toBe(0);\\n});\\n' >> src/sum.test.ts`,
    );
    expect(said).toMatch(/^Pushed 1 commit\(s\)/);
    expect(remote).toMatch(/^[0-9a-f]{40}$/);
  });

  it("an ordinary run (not a CI fix) may skip a test when asked to", async () => {
    const { said, remote } = await fixRun(`sed -i 's/^it("negatives"/it.skip("negatives"/' src/sum.test.ts`, { guardTests: false });
    expect(said).toMatch(/^Pushed/);
    expect(remote).not.toBeNull();
  });
});
