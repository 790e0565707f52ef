import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { HumanMessage } from "@langchain/core/messages";
import { readContextAttachments, renderTree, repoPath, requestContextPaths, withContextBlocks } from "../../src/runs/context-attachments.js";
import { ensureMirror } from "../../src/sandbox/workspace/mirror.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], { cwd, encoding: "utf8" });

describe("--context attachments, read from the mirror at the run's commit", () => {
  let mirror = "";
  let commit = "";
  beforeAll(async () => {
    const work = mkdtempSync(join(tmpdir(), "ctx-"));
    git(work, "init", "-q", "-b", "main");
    const files: Record<string, string | Buffer> = {
      "docs/guide.md": "# Guide\nread me\n",
      "src/a/b/c/d/e/deep.ts": "x",
      "src/index.ts": "export {};\n",
      "src/.hidden/x": "h",
      "big.txt": "x".repeat(600 * 1024),
      "logo.png": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]),
    };
    for (const [p, c] of Object.entries(files)) {
      mkdirSync(dirname(join(work, p)), { recursive: true });
      writeFileSync(join(work, p), c);
    }
    symlinkSync("/etc/passwd", join(work, "passwd"));
    git(work, "add", "-A");
    git(work, "commit", "-qm", "i");
    writeFileSync(join(work, "docs/guide.md"), "uncommitted\n");
    mirror = await ensureMirror({ mirrorRoot: mkdtempSync(join(tmpdir(), "m-")), repo: "o/r", remoteUrl: work });
    commit = git(work, "rev-parse", "HEAD").trim();
  });

  it.each([
    ["a file: its committed text", "docs/guide.md", '<context_file path="docs/guide.md">\n# Guide\nread me\n\n</context_file>'],
    ["./ and a trailing slash are normalised", "./docs/guide.md", '<context_file path="docs/guide.md">'],
    ["a directory: its tree to depth 4, dotfiles left out", "src", '<context_directory path="src">\na/\n  b/\n    c/\n      d/\nindex.ts\n</context_directory>'],
    ["the repository root", ".", '<context_directory path=".">\nbig.txt\ndocs/\n  guide.md\nlogo.png\npasswd\nsrc/\n'],
    ["too large", "big.txt", '<context_skipped path="big.txt">larger than 512 KB (614400 bytes): read it in the sandbox</context_skipped>'],
    ["binary", "logo.png", '<context_skipped path="logo.png">a binary file, not attached</context_skipped>'],
    ["a symbolic link is not followed", "passwd", '<context_skipped path="passwd">a symbolic link, not attached</context_skipped>'],
    ["outside the repository", "../etc/passwd", '<context_skipped path="../etc/passwd">not a path inside the repository</context_skipped>'],
    ["absolute", "/etc/passwd", '<context_skipped path="/etc/passwd">not a path inside the repository</context_skipped>'],
    ["missing", "nope.md", '<context_skipped path="nope.md">not found at '],
  ])("%s", async (_t, path, expected) => {
    const [block] = await readContextAttachments(mirror, commit, [path]);
    expect(block!.startsWith(expected)).toBe(true);
    expect(block).not.toContain("root:");
  });

  it("at most 10 paths; the rest are named", async () => {
    const blocks = await readContextAttachments(
      mirror,
      commit,
      Array.from({ length: 12 }, () => "docs/guide.md"),
    );
    expect(blocks).toHaveLength(12);
    expect(blocks.slice(10)).toEqual(Array(2).fill('<context_skipped path="docs/guide.md">more than 10 context paths</context_skipped>'));
  });

  it.each([
    ["a/b", "a/b"],
    ["./a/", "a"],
    ["a/../b", "b"],
    ["a/../../b", null],
    ["/a", null],
    ["", ""],
  ])("repoPath(%j) = %j", (p, expected) => expect(repoPath(p)).toBe(expected));

  it("renderTree cuts at the depth", () => {
    expect(renderTree(["a/b/c.txt", "a/d.txt", "e.txt"], 2)).toBe("a/\n  b/\n  d.txt\ne.txt");
  });

  it.each([
    ["fix it --context src/a.ts", ["src/a.ts"]],
    ["--context=docs --context README.md please", ["docs", "README.md"]],
    ["no--context x", []],
    ["nothing", []],
  ])("requestContextPaths(%j)", (text, paths) => expect(requestContextPaths(text)).toEqual(paths));

  it("withContextBlocks appends blocks to text or block content", () => {
    expect(withContextBlocks(new HumanMessage("t"), ["<c/>"]).content).toEqual([
      { type: "text", text: "t" },
      { type: "text", text: "<c/>" },
    ]);
    const m = new HumanMessage("t");
    expect(withContextBlocks(m, [])).toBe(m);
  });
});
