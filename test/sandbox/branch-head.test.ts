import { mkdir, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeBranchHead } from "../../src/sandbox/providers/branch-head.js";

const SHA = "a".repeat(40);
const me = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0, drop: false };

describe("writeBranchHead", () => {
  let tmp: string;
  let n = 0;
  const gitDir = async () => {
    const d = join(tmp, `g${++n}`);
    await mkdir(d);
    return d;
  };
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), "osw-head-"));
  });
  afterAll(() => rm(tmp, { recursive: true, force: true }));

  it("writes HEAD and the (nested) branch ref", async () => {
    const d = await gitDir();
    await writeBranchHead(d, { branch: "open-swe/a/b", sha: SHA }, me);
    expect(await readFile(join(d, "HEAD"), "utf8")).toBe("ref: refs/heads/open-swe/a/b\n");
    expect(await readFile(join(d, "refs", "heads", "open-swe", "a", "b"), "utf8")).toBe(`${SHA}\n`);
  });

  it.each([
    ["a parent segment", { branch: "../../x", sha: SHA }, /invalid branch/],
    ["a hidden segment", { branch: "a/.b", sha: SHA }, /invalid branch/],
    ["an empty segment", { branch: "a//b", sha: SHA }, /invalid branch/],
    ["a lock name", { branch: "a.lock", sha: SHA }, /invalid branch/],
    ["a short sha", { branch: "a", sha: "abc" }, /invalid commit/],
    ["a sha with a newline", { branch: "a", sha: `${SHA}\nref: x` }, /invalid commit/],
  ])("refuses %s", async (_name, head, error) => {
    await expect(writeBranchHead(await gitDir(), head, me)).rejects.toThrow(error);
  });

  it("never follows what is already there", async () => {
    const d = await gitDir();
    const elsewhere = join(tmp, "elsewhere");
    await mkdir(elsewhere);
    await symlink(elsewhere, join(d, "refs"));
    await expect(writeBranchHead(d, { branch: "x", sha: SHA }, me)).rejects.toMatchObject({ code: "EEXIST" });
    const e = await gitDir();
    await symlink(join(tmp, "planted-head"), join(e, "HEAD"));
    await expect(writeBranchHead(e, { branch: "x", sha: SHA }, me)).rejects.toMatchObject({ code: "EEXIST" });
    await expect(readFile(join(tmp, "planted-head"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});
