import micromatch from "micromatch";
import { describe, expect, it } from "vitest";
import { SkillsBackend } from "../../../src/agent/subagents/skills-backend.js";

const backend = new SkillsBackend([
  {
    name: "alpha",
    level: "project",
    files: new Map([
      ["SKILL.md", "alpha skill"],
      ["notes/usage.txt", "use alpha"],
      [".hidden.md", "dot file"],
    ]),
  },
  { name: "beta", level: "project", files: new Map([["SKILL.md", "beta skill"]]) },
  {
    name: "gamma",
    level: "user",
    files: new Map([
      ["SKILL.md", "gamma skill"],
      ["ref/a.md", "gamma ref"],
    ]),
  },
]);

/**
 * The skills mount matches globs the way deepagents' own file backends do (micromatch, `dot: true`): the
 * agent's glob means the same on /skills/ as in the rest of its file tree.
 */
describe("SkillsBackend: glob and grep's glob use deepagents' matching", () => {
  it.each<[string, string, string[]]>([
    ["*/SKILL.md", "/", ["/alpha/SKILL.md", "/beta/SKILL.md", "/gamma/SKILL.md"]],
    ["**/*.md", "/", ["/alpha/SKILL.md", "/alpha/.hidden.md", "/beta/SKILL.md", "/gamma/SKILL.md", "/gamma/ref/a.md"]],
    ["[ab]*/SKILL.md", "/", ["/alpha/SKILL.md", "/beta/SKILL.md"]],
    ["{alpha,gamma}/**/*.{md,txt}", "/", ["/alpha/SKILL.md", "/alpha/notes/usage.txt", "/alpha/.hidden.md", "/gamma/SKILL.md", "/gamma/ref/a.md"]],
    ["*/!(SKILL).md", "/", ["/alpha/.hidden.md"]],
    ["ref/?.md", "/gamma", ["/gamma/ref/a.md"]],
    ["/alpha/*.md", "/", ["/alpha/SKILL.md", "/alpha/.hidden.md"]],
  ])("glob %s under %s", (pattern, path, want) => {
    const got = backend.glob(pattern, path).files?.map((f) => f.path) ?? [];
    expect(got.sort()).toEqual([...want].sort());
    // The same answer as micromatch over the same relative paths.
    const base = path.endsWith("/") ? path : `${path}/`;
    const all = ["/alpha/SKILL.md", "/alpha/notes/usage.txt", "/alpha/.hidden.md", "/beta/SKILL.md", "/gamma/SKILL.md", "/gamma/ref/a.md"];
    const rel = all.filter((p) => p.startsWith(base)).map((p) => p.slice(base.length));
    expect(
      micromatch(rel, pattern.replace(/^\//, ""), { dot: true })
        .map((r) => base + r)
        .sort(),
    ).toEqual([...want].sort());
  });

  it("grep's glob matches the file's name, braces and classes included", () => {
    expect(
      backend
        .grep("skill", "/", "*.{md,txt}")
        .matches?.map((m) => m.path)
        .sort(),
    ).toEqual(["/alpha/SKILL.md", "/beta/SKILL.md", "/gamma/SKILL.md"]);
    expect(backend.grep("use", "/", "[u]sage.txt").matches?.map((m) => m.path)).toEqual(["/alpha/notes/usage.txt"]);
  });
});
