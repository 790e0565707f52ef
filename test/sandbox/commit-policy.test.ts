import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDirOf, changedPaths, commitRefusal, trackedBuildDirs, type ChangedPath } from "../../src/sandbox/workspace/commit-policy.js";
import { hostGit } from "../../src/sandbox/workspace/host-git.js";
import { listFiles } from "../../src/runs/commit-and-push-tool.js";

const caps = { maxFiles: 10, maxBytes: 1000 };
const file = (path: string, status = "A", bytes = 10): ChangedPath => ({ status, path, bytes });

describe("commitRefusal (pure)", () => {
  it.each<[string, ChangedPath[], string[], RegExp | null]>([
    ["a small change", [file("src/a.ts", "M"), file("README.md")], [], null],
    ["node_modules added", [file("src/a.ts"), file("node_modules/lodash/index.js"), file("node_modules/lodash/package.json")], [], /node_modules\/ \(2 files\)/],
    ["nested node_modules", [file("packages/web/node_modules/x/i.js")], [], /packages\/web\/node_modules\//],
    ["__pycache__ and .venv", [file("pkg/__pycache__/m.cpython-311.pyc"), file(".venv/bin/python")], [], /pkg\/__pycache__\/ .*\.venv\//],
    ["a dist/ the base already tracks", [file("dist/index.js")], ["dist"], null],
    ["a file merely named dist", [file("docs/dist"), file("target.md")], [], null],
    ["modifying a tracked file under target/ is not adding build output", [file("target/keep.txt", "M")], [], null],
    ["over the file cap", Array.from({ length: 11 }, (_, i) => file(`f${i}.txt`)), [], /changes 11 files; the cap is 10/],
    ["deletions count as files, not bytes", Array.from({ length: 10 }, (_, i) => file(`f${i}.txt`, "D", 0)), [], null],
    ["over the byte cap", [file("big.bin", "A", 1500)], [], /adds 2 KB of file content; the cap is 1 KB/],
  ])("%s", (_n, changes, tracked, want) => {
    const got = commitRefusal(changes, caps, new Set(tracked));
    if (want === null) expect(got).toBeNull();
    else expect(got).toMatch(want);
  });

  it("buildDirOf finds the directory, not a file of that name", () => {
    expect(buildDirOf("a/node_modules/b/c.js")).toBe("a/node_modules");
    expect(buildDirOf("node_modules")).toBeNull();
    expect(buildDirOf("src/dist.ts")).toBeNull();
  });
});

describe("changedPaths / trackedBuildDirs (real git)", () => {
  let repo: string;
  const env = { GIT_AUTHOR_NAME: "Dev", GIT_AUTHOR_EMAIL: "d@example.com", GIT_COMMITTER_NAME: "Dev", GIT_COMMITTER_EMAIL: "d@example.com" };
  const put = async (path: string, content: string) => {
    await mkdir(dirname(join(repo, path)), { recursive: true });
    await writeFile(join(repo, path), content);
  };
  const commit = async () => {
    await hostGit(["-C", repo, "add", "-A"]);
    await hostGit(["-C", repo, "commit", "-q", "-m", "c"], { env });
    return (await hostGit(["-C", repo, "rev-parse", "HEAD"])).trim();
  };
  beforeAll(async () => {
    repo = await mkdtemp(join(tmpdir(), "osw-policy-"));
    await hostGit(["init", "-q", "-b", "main", repo]);
  });
  afterAll(async () => rm(repo, { recursive: true, force: true }));

  it("lists status, path and new blob size; sees which build dirs the base tracks", async () => {
    await put("README.md", "hello\n");
    await put("dist/index.js", "x\n");
    await put("gone.txt", "bye\n");
    const base = await commit();
    await put("README.md", "hello world\n");
    await put("dist/extra.js", "12345");
    await put("node_modules/lodash/index.js", "module.exports = 1;\n");
    await rm(join(repo, "gone.txt"));
    const head = await commit();
    const changes = await changedPaths(repo, base, head);
    expect(changes).toEqual([
      { status: "M", path: "README.md", bytes: 12 },
      { status: "A", path: "dist/extra.js", bytes: 5 },
      { status: "D", path: "gone.txt", bytes: 0 },
      { status: "A", path: "node_modules/lodash/index.js", bytes: 20 },
    ]);
    const tracked = await trackedBuildDirs(repo, base, changes);
    expect([...tracked]).toEqual(["dist"]);
    expect(commitRefusal(changes, caps, tracked)).toMatch(/node_modules\/ \(1 file\)/);
  });
});

describe("the pushed-files list the tool returns", () => {
  it("is capped: a big change is summarised", () => {
    const files = Array.from({ length: 2090 }, (_, i) => `node_modules/p${i}/index.js`);
    const text = listFiles(files);
    expect(text.split(", ")).toHaveLength(31);
    expect(text).toMatch(/… and 2060 more$/);
    expect(listFiles(["a", "b"])).toBe("a, b");
  });
});
