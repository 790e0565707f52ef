import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadAgents, skippedAgentsNote } from "../../../src/agent/subagents/load-agents.js";
import { ensureMirror } from "../../../src/sandbox/workspace/mirror.js";
import { mirrorCommitTree } from "../../../src/sandbox/workspace/mirror-commit-tree.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], { cwd, encoding: "utf8" });

function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    if (content.startsWith("@link:")) symlinkSync(content.slice(6), join(root, path));
    else writeFileSync(join(root, path), content);
  }
}

/** A working copy with `files` committed, fetched into a host mirror as a run does; returns mirror + commit. */
async function mirrored(files: Record<string, string>) {
  const work = mkdtempSync(join(tmpdir(), "agents-repo-"));
  git(work, "init", "-q", "-b", "main");
  writeTree(work, { "README.md": "# r\n", ...files });
  git(work, "add", "-A");
  git(work, "commit", "-qm", "init");
  const mirror = await ensureMirror({ mirrorRoot: mkdtempSync(join(tmpdir(), "mirrors-")), repo: "o/r", remoteUrl: work });
  return { work, mirror, commit: git(work, "rev-parse", "HEAD").trim() };
}

const agent = (name: string | null, extra = "", body = `I am ${name ?? "?"}.`) => `---\n${name ? `name: ${name}\n` : ""}description: ${name ?? "x"} agent\n${extra}---\n${body}\n`;

interface Case {
  title: string;
  project?: Record<string, string>;
  user?: Record<string, string>;
  agents: Array<[name: string, source: string, file?: string]>;
  passedOver?: Array<{ file: string; reason: string; by?: string; detail?: RegExp }>;
}

const U = "<user>";
const cases: Case[] = [
  {
    title: "project .agents/agents wins over .open-swe/agents for the same name (first directory within a level)",
    project: { ".agents/agents/reviewer.md": agent("reviewer"), ".open-swe/agents/reviewer.md": agent("reviewer"), ".open-swe/agents/tester.md": agent("tester") },
    agents: [
      ["reviewer", "project", ".agents/agents/reviewer.md"],
      ["tester", "project", ".open-swe/agents/tester.md"],
      ["general-purpose", "builtin"],
    ],
    passedOver: [{ file: ".open-swe/agents/reviewer.md", reason: "shadowed", by: ".agents/agents/reviewer.md" }],
  },
  {
    title: "project wins over user; user over built-in; user .agents before .open-swe",
    project: { ".agents/agents/reviewer.md": agent("reviewer") },
    user: {
      ".agents/agents/reviewer.md": agent("reviewer"),
      ".agents/agents/general-purpose.md": agent("general-purpose"),
      ".open-swe/agents/mine.md": agent("mine"),
      ".agents/agents/mine.md": agent("mine"),
    },
    agents: [
      ["reviewer", "project", ".agents/agents/reviewer.md"],
      ["general-purpose", "user", `${U}/.agents/agents/general-purpose.md`],
      ["mine", "user", `${U}/.agents/agents/mine.md`],
    ],
    passedOver: [
      { file: `${U}/.agents/agents/reviewer.md`, reason: "shadowed", by: ".agents/agents/reviewer.md" },
      { file: `${U}/.open-swe/agents/mine.md`, reason: "shadowed", by: `${U}/.agents/agents/mine.md` },
    ],
  },
  {
    title: "the name comes from frontmatter, else the stem: two files naming one agent, the sorted-first wins",
    project: { ".agents/agents/b.md": agent("same"), ".agents/agents/a.md": agent("same"), ".agents/agents/stemmed.md": agent(null) },
    agents: [
      ["same", "project", ".agents/agents/a.md"],
      ["stemmed", "project", ".agents/agents/stemmed.md"],
      ["general-purpose", "builtin"],
    ],
    passedOver: [{ file: ".agents/agents/b.md", reason: "shadowed", by: ".agents/agents/a.md" }],
  },
  {
    title: "README skipped, top level only, non-.md ignored",
    project: {
      ".agents/agents/README.md": "# docs",
      ".agents/agents/readme.md": "# docs",
      ".agents/agents/nested/deep.md": agent("deep"),
      ".agents/agents/notes.txt": "x",
      ".agents/agents/ok.md": agent("ok"),
    },
    agents: [
      ["ok", "project", ".agents/agents/ok.md"],
      ["general-purpose", "builtin"],
    ],
    passedOver: [
      { file: ".agents/agents/README.md", reason: "readme" },
      { file: ".agents/agents/nested/deep.md", reason: "not_top_level" },
      { file: ".agents/agents/readme.md", reason: "readme" },
    ],
  },
  {
    title: "a file that fails to parse is passed over with its reason; the rest load, and it shadows nothing",
    project: { ".agents/agents/bad.md": "---\ntools: [a\n---\nx", ".agents/agents/good.md": agent("good"), ".agents/agents/limit.md": agent("limit", "max_iteration_per_run: 0\n") },
    user: { ".agents/agents/limit.md": agent("limit") },
    agents: [
      ["good", "project", ".agents/agents/good.md"],
      ["limit", "user", `${U}/.agents/agents/limit.md`],
      ["general-purpose", "builtin"],
    ],
    passedOver: [
      { file: ".agents/agents/bad.md", reason: "parse_error", detail: /invalid YAML frontmatter/ },
      { file: ".agents/agents/limit.md", reason: "parse_error", detail: /max_iteration_per_run/ },
    ],
  },
  {
    title: "an unknown tool or skill is an error naming the file and the name",
    project: {
      ".agents/agents/t.md": agent("t", "tools: [read_file, rm_rf]\n"),
      ".agents/agents/s.md": agent("s", "skills: nope\n"),
      ".agents/agents/ok.md": agent("ok", "tools: [read_file, commit_and_push]\nskills: deploy\n"),
      ".agents/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: d\n---\nsteps\n",
    },
    agents: [
      ["ok", "project", ".agents/agents/ok.md"],
      ["general-purpose", "builtin"],
    ],
    passedOver: [
      { file: ".agents/agents/s.md", reason: "parse_error", detail: /unknown skill "nope"/ },
      { file: ".agents/agents/t.md", reason: "parse_error", detail: /unknown tool "rm_rf"/ },
    ],
  },
  {
    title: "a symbolic link is not followed: a parse error",
    project: { ".agents/agents/link.md": "@link:/etc/passwd" },
    user: { ".agents/agents/ulink.md": "@link:/etc/hostname" },
    agents: [["general-purpose", "builtin"]],
    passedOver: [
      { file: ".agents/agents/link.md", reason: "parse_error", detail: /symbolic link/ },
      { file: `${U}/.agents/agents/ulink.md`, reason: "parse_error", detail: /symbolic link/ },
    ],
  },
  {
    title: "a file over the size cap is not read",
    project: { ".agents/agents/huge.md": `${agent("huge")}${"x".repeat(300 * 1024)}` },
    agents: [["general-purpose", "builtin"]],
    passedOver: [{ file: ".agents/agents/huge.md", reason: "parse_error", detail: /larger than/ }],
  },
];

describe("agent discovery and precedence (seed 003), on real directories and a real mirror", () => {
  it.each(cases)("$title", async (c) => {
    const { mirror, commit } = await mirrored(c.project ?? {});
    const root = mkdtempSync(join(tmpdir(), "users-"));
    writeTree(join(root, "alice"), c.user ?? {});
    const loaded = await loadAgents({ repo: mirrorCommitTree(mirror, commit), user: { root, login: "alice" }, runTools: ["commit_and_push"] });
    const u = (s: string) => s.replace(`${join(root, "alice")}`, U);
    expect(loaded.agents.map((a) => [a.definition.name, a.source, ...(a.file ? [u(a.file)] : [])])).toEqual(c.agents);
    expect(loaded.passedOver.map((p) => ({ ...p, file: u(p.file), ...(p.by ? { by: u(p.by) } : {}) }))).toEqual(
      (c.passedOver ?? []).map(({ detail, ...p }) => ({ ...p, ...(detail ? { detail: expect.stringMatching(detail) } : {}) })),
    );
  });

  it("reads the mirror at the given commit, never the working tree", async () => {
    const { work, mirror, commit } = await mirrored({ ".agents/agents/a.md": agent("a") });
    writeTree(work, { ".agents/agents/uncommitted.md": agent("uncommitted") });
    const loaded = await loadAgents({ repo: mirrorCommitTree(mirror, commit), runTools: [] });
    expect(loaded.agents.map((a) => a.definition.name)).toEqual(["a", "general-purpose"]);
  });

  it("a login that is not a GitHub login reads no user directory", async () => {
    const root = mkdtempSync(join(tmpdir(), "users-"));
    writeTree(root, { ".agents/agents/root.md": agent("root") });
    writeTree(join(root, "x"), { ".agents/agents/escape.md": agent("escape") });
    for (const login of ["..", "../x", "x/..", ""]) {
      const loaded = await loadAgents({ user: { root, login }, runTools: [] });
      expect(loaded.agents.map((a) => a.definition.name)).toEqual(["general-purpose"]);
    }
  });

  it("the reply lists the files that could not be loaded, with the reason", async () => {
    const { mirror, commit } = await mirrored({ ".agents/agents/bad.md": "---\nmodel: claude-banana\n---\nx" });
    const note = skippedAgentsNote(await loadAgents({ repo: mirrorCommitTree(mirror, commit), runTools: [] }));
    expect(note).toMatch(/^Skipped agent file\(s\) that could not be loaded:\n- `\.agents\/agents\/bad\.md`: model: unknown model "claude-banana"/);
    const { mirror: m2, commit: c2 } = await mirrored({ ".agents/agents/ok.md": agent("ok") });
    expect(skippedAgentsNote(await loadAgents({ repo: mirrorCommitTree(m2, c2), runTools: [] }))).toBeUndefined();
  });
});

describe("the whole run's budget for agent and skill files", () => {
  const skill = (name: string) => `---\nname: ${name}\ndescription: ${name} skill\n---\nDo ${name}.\n`;

  it("counts: past 50 agents and 100 skills (both levels, project first) files are not read, and the reply names them", async () => {
    const project: Record<string, string> = {};
    for (let i = 0; i < 45; i++) project[`.agents/agents/a${String(i).padStart(2, "0")}.md`] = agent(`a${String(i).padStart(2, "0")}`);
    for (let i = 0; i < 104; i++) project[`.agents/skills/s${String(i).padStart(3, "0")}/SKILL.md`] = skill(`s${String(i).padStart(3, "0")}`);
    const { mirror, commit } = await mirrored(project);
    const root = mkdtempSync(join(tmpdir(), "user-agents-"));
    const user: Record<string, string> = {};
    for (let i = 0; i < 8; i++) user[`dana/.agents/agents/u${i}.md`] = agent(`u${i}`);
    writeTree(root, user);
    const loaded = await loadAgents({ repo: mirrorCommitTree(mirror, commit), user: { root, login: "dana" }, runTools: [] });
    expect(loaded.agents.filter((a) => a.source === "project")).toHaveLength(45);
    expect(loaded.agents.filter((a) => a.source === "user").map((a) => a.definition.name)).toEqual(["u0", "u1", "u2", "u3", "u4"]);
    expect(loaded.skills).toHaveLength(100);
    expect(loaded.leftOut).toEqual([
      ...["s100", "s101", "s102", "s103"].map((s) => `skill \`${s}\` (past 100 skills)`),
      ...["u5", "u6", "u7"].map((u) => `agent file \`~dana/.agents/agents/${u}.md\` (past 50 agents)`),
    ]);
    const note = skippedAgentsNote(loaded)!;
    expect(note).toMatch(/^Left out of this run, past its budget for agent and skill files \(7\):\n- skill `s100` \(past 100 skills\)\n/);
  });

  it("bytes: past the total (2 MB by default) a file is not read; a smaller limit is honoured; the note caps its list", async () => {
    const big = (name: string) => agent(name, "", "x".repeat(200 * 1024));
    const project: Record<string, string> = {};
    for (let i = 0; i < 12; i++) project[`.agents/agents/b${String(i).padStart(2, "0")}.md`] = big(`b${String(i).padStart(2, "0")}`);
    const { mirror, commit } = await mirrored(project);
    const loaded = await loadAgents({ repo: mirrorCommitTree(mirror, commit), runTools: [] });
    // 10 × ~200 KB fit in 2 MB; the 11th and 12th do not.
    expect(loaded.agents.filter((a) => a.source === "project")).toHaveLength(10);
    expect(loaded.leftOut).toEqual(["b10", "b11"].map((b) => `agent file \`.agents/agents/${b}.md\` (past 2 MB of agent and skill files)`));
    const small = await loadAgents({ repo: mirrorCommitTree(mirror, commit), runTools: [], limits: { maxBytes: 300 * 1024, maxAgents: 50, maxSkills: 100 } });
    expect(small.agents.filter((a) => a.source === "project")).toHaveLength(1);
    const note = skippedAgentsNote(small)!;
    expect(note.split("\n")).toHaveLength(1 + 10 + 1);
    expect(note).toMatch(/- … and 1 more$/);
  });

  it("a commit's listing is read once per mirror: reused for that commit, read anew for a new commit or another mirror", async () => {
    const { mirror, commit } = await mirrored({});
    expect((await loadAgents({ repo: mirrorCommitTree(mirror, commit), runTools: [] })).agents.map((a) => a.source)).toEqual(["builtin"]);
    // The mirror gone, the same commit still lists (from memory); another repository's mirror never gets it.
    const moved = `${mirror}-moved`;
    execFileSync("mv", [mirror, moved]);
    expect((await loadAgents({ repo: mirrorCommitTree(mirror, commit), runTools: [] })).agents.map((a) => a.source)).toEqual(["builtin"]);
    await expect(loadAgents({ repo: mirrorCommitTree(`${mirror}-other`, commit), runTools: [] })).rejects.toThrow();
    execFileSync("mv", [moved, mirror]);

    const repo = await mirrored({ ".agents/agents/reviewer.md": agent("reviewer") });
    expect((await loadAgents({ repo: mirrorCommitTree(repo.mirror, repo.commit), runTools: [] })).agents.map((a) => a.definition.name)).toEqual(["reviewer", "general-purpose"]);
    writeTree(repo.work, { ".agents/agents/tester.md": agent("tester") });
    git(repo.work, "add", "-A");
    git(repo.work, "commit", "-qm", "tester");
    git(repo.mirror, "fetch", "-q", repo.work, "+refs/heads/*:refs/heads/*");
    const next = git(repo.work, "rev-parse", "HEAD").trim();
    expect((await loadAgents({ repo: mirrorCommitTree(repo.mirror, next), runTools: [] })).agents.map((a) => a.definition.name).sort()).toEqual(["general-purpose", "reviewer", "tester"]);
    rmSync(repo.work, { recursive: true, force: true });
  });
});
