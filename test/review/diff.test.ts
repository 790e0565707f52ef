import { describe, expect, it } from "vitest";
import { buildPullDiff, candidatesFor, findingKey, isChangedLine, isCommentable, lineTextAt, neighboursIn, parsePatch, type Side } from "../../src/review/diff.js";

const PATCH = [
  "@@ -1,4 +1,5 @@",
  " import { a } from './a.js';",
  "-const x = 1;",
  "+const x = 2;",
  "+const y = x * 2;",
  " ",
  " export { x };",
  "@@ -20,3 +21,3 @@ function run() {",
  "   const data = load();",
  "-  return data;",
  "+  return data ?? null;",
  " }",
  "\\ No newline at end of file",
].join("\n");

const diff = buildPullDiff([
  { filename: "src/a.ts", status: "modified", patch: PATCH },
  { filename: "logo.png", status: "added" },
  { filename: "src/new-name.ts", status: "renamed", previous_filename: "src/old-name.ts", patch: "@@ -1,2 +1,2 @@\n-let a = 1;\n+let a = 10;\n let b = a;" },
]);

describe("parsePatch", () => {
  it("numbers both sides of every hunk", () => {
    const hunks = parsePatch(PATCH);
    expect(hunks).toHaveLength(2);
    expect(hunks[0]!.lines.map((l) => [l.kind, l.oldLine, l.newLine])).toEqual([
      ["context", 1, 1],
      ["del", 2, null],
      ["add", null, 2],
      ["add", null, 3],
      ["context", 3, 4],
      ["context", 4, 5],
    ]);
    expect(hunks[1]!.header).toBe("function run() {");
    expect(hunks[1]!.lines.map((l) => [l.kind, l.oldLine, l.newLine])).toEqual([
      ["context", 20, 21],
      ["del", 21, null],
      ["add", null, 22],
      ["context", 22, 23],
    ]);
  });

  // The function context after `@@` is the file's own text: whatever characters it holds, the line is a header.
  it.each([
    ["plain", "function run() {"],
    ["carriage return", "function run() {\r"],
    ["CR inside", "a\rb"],
    ["U+2028", "const s = '\u2028';"],
    ["U+2029", "x\u2029y"],
    ["only U+2028", "\u2028"],
    ["empty", ""],
  ])("a hunk header whose function context holds %s is a header, first or later", (_name, ctx) => {
    const tail = ctx === "" ? "" : ` ${ctx}`;
    const hunks = parsePatch([`@@ -1,2 +1,2 @@${tail}`, " a", "-b", "+c", `@@ -10,2 +10,3 @@${tail}`, " d", "+e", " f"].join("\n"));
    expect(hunks.map((h) => [h.oldStart, h.newStart, h.lines.length])).toEqual([
      [1, 1, 3],
      [10, 10, 3],
    ]);
    expect(hunks[1]!.lines.map((l) => [l.kind, l.oldLine, l.newLine])).toEqual([
      ["context", 10, 10],
      ["add", null, 11],
      ["context", 11, 12],
    ]);
    expect(hunks[0]!.header).toBe(ctx.trim());
  });

  it("treats a bare empty line inside a hunk as an empty context line, but not a trailing one", () => {
    const hunks = parsePatch("@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n");
    expect(hunks[0]!.lines.map((l) => l.kind)).toEqual(["context", "context", "del", "add"]);
  });
});

describe("isCommentable / isChangedLine", () => {
  const table: Array<[string, number, Side, boolean, boolean]> = [
    // path, line, side, commentable, changed
    ["src/a.ts", 2, "RIGHT", true, true],
    ["src/a.ts", 3, "RIGHT", true, true],
    ["src/a.ts", 1, "RIGHT", true, false],
    ["src/a.ts", 5, "RIGHT", true, false],
    ["src/a.ts", 2, "LEFT", true, true],
    ["src/a.ts", 3, "LEFT", true, false],
    ["src/a.ts", 22, "RIGHT", true, true],
    ["src/a.ts", 21, "LEFT", true, true],
    ["src/a.ts", 10, "RIGHT", false, false],
    ["src/a.ts", 6, "RIGHT", false, false],
    ["src/a.ts", 24, "RIGHT", false, false],
    ["logo.png", 1, "RIGHT", false, false],
    ["src/missing.ts", 1, "RIGHT", false, false],
    ["src/new-name.ts", 1, "RIGHT", true, true],
  ];
  it.each(table)("%s:%i %s → commentable %s, changed %s", (path, line, side, commentable, changed) => {
    expect(isCommentable(diff, path, line, side)).toBe(commentable);
    expect(isChangedLine(diff, path, line, side)).toBe(changed);
  });
});

describe("finding keys and candidates", () => {
  it("key on the flagged line's own normalised text, rule, side and path — not its neighbours", () => {
    expect(lineTextAt(diff, "src/a.ts", 22, "RIGHT")).toBe("return data ?? null;");
    expect(lineTextAt(diff, "src/a.ts", 99, "RIGHT")).toBeNull();
    const k = findingKey("src/a.ts", "RIGHT", "null-return", "return data ?? null;");
    expect(findingKey("src/a.ts", "RIGHT", " Null-Return ", "return data ?? null;")).toBe(k);
    expect(findingKey("src/a.ts", "RIGHT", "other-rule", "return data ?? null;")).not.toBe(k);
    expect(findingKey("src/b.ts", "RIGHT", "null-return", "return data ?? null;")).not.toBe(k);
    expect(findingKey("src/a.ts", "LEFT", "null-return", "return data ?? null;")).not.toBe(k);
  });

  it("finds every diff line with that text, whitespace aside, in the file or the one it was renamed from", () => {
    const moved = buildPullDiff([{ filename: "src/a.ts", patch: "@@ -30,3 +40,4 @@\n     const data   = load();\n-  return data;\n+    return   data ?? null;\n+  return data ?? null;\n }" }]);
    expect(candidatesFor(moved, "src/a.ts", "RIGHT", "return data ?? null;")).toEqual([
      { path: "src/a.ts", line: 41, side: "RIGHT" },
      { path: "src/a.ts", line: 42, side: "RIGHT" },
    ]);
    expect(candidatesFor(diff, "src/old-name.ts", "RIGHT", "let a = 10;")).toEqual([{ path: "src/new-name.ts", line: 1, side: "RIGHT" }]);
    expect(candidatesFor(moved, "src/a.ts", "RIGHT", "return data ?? fallback();")).toEqual([]);
  });

  it("reads neighbours from the file text: the nearest non-blank lines above and below", () => {
    const file = ["a", "", "  b  ", "target", "", "", "c"];
    expect(neighboursIn(file, 4)).toEqual(["b", "c"]);
    expect(neighboursIn(file, 1)).toEqual([null, "b"]);
    expect(neighboursIn(file, 7)).toEqual(["target", null]);
    expect(neighboursIn(null, 4)).toEqual([null, null]);
  });
});
