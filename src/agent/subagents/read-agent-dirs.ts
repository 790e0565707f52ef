import { lstat, readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { hostGit } from "../../sandbox/workspace/host-git.js";
import type { AgentDir, ListedEntry } from "./resolve-agents.js";

/** A file bigger than this is not read (an agent definition or a skill file is a page of text). */
export const MAX_AGENT_FILE_BYTES = 256 * 1024;
/** At most this many entries per directory tree are looked at: a huge tree is cut, never walked whole. */
const MAX_ENTRIES = 500;

export const PROJECT_AGENT_DIRS = [".agents/agents", ".open-swe/agents"] as const;
export const USER_AGENT_DIRS = [".agents/agents", ".open-swe/agents"] as const;
export const SKILLS_DIR = ".agents/skills";

/** A GitHub login: the user-level directory name, never a path. */
const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
export const isLogin = (s: string) => LOGIN.test(s);

interface TreeEntry {
  mode: string;
  oid: string;
  size: number;
  path: string;
}

/** `git ls-tree -r -l -z` of the given directories at a commit in the host mirror (never a sandbox). */
async function lsTree(mirror: string, commit: string, dirs: readonly string[]): Promise<TreeEntry[]> {
  const out = await hostGit(["-C", mirror, "ls-tree", "-r", "-l", "-z", "--full-tree", commit, "--", ...dirs.map((d) => `${d}/`)]);
  const entries: TreeEntry[] = [];
  for (const rec of out.split("\0")) {
    const tab = rec.indexOf("\t");
    if (tab < 0) continue;
    const [mode = "", , oid = "", size = "0"] = rec.slice(0, tab).split(/\s+/);
    entries.push({ mode, oid, size: Number(size) || 0, path: rec.slice(tab + 1) });
  }
  return entries;
}

async function blobText(mirror: string, oid: string): Promise<string> {
  return hostGit(["-C", mirror, "cat-file", "blob", oid]);
}

const kindOf = (mode: string): ListedEntry["kind"] => (mode === "100644" || mode === "100755" ? "file" : mode === "120000" ? "link" : "other");

async function entryFromTree(mirror: string, e: TreeEntry, rel: string): Promise<ListedEntry> {
  const kind = kindOf(e.mode);
  const entry: ListedEntry = { path: rel, kind };
  if (kind !== "file" || rel.includes("/") || !rel.endsWith(".md")) return entry;
  if (e.size > MAX_AGENT_FILE_BYTES) return { ...entry, unreadable: `larger than ${MAX_AGENT_FILE_BYTES} bytes` };
  return { ...entry, text: await blobText(mirror, e.oid) };
}

/** A skill: its directory's files (text), `SKILL.md` among them. */
export interface SkillFiles {
  name: string;
  level: "project" | "user";
  /** Relative to the skill's directory. */
  files: Map<string, string>;
}

export interface RepoAgentFiles {
  dirs: AgentDir[];
  skills: SkillFiles[];
}

const SKILL_NAME = /^[a-z0-9](?:[a-z0-9]|-(?!-)){0,62}[a-z0-9]?$/;

function addSkillFile(skills: Map<string, SkillFiles>, level: SkillFiles["level"], rel: string, text: string): void {
  const slash = rel.indexOf("/");
  if (slash < 0) return;
  const name = rel.slice(0, slash);
  if (!SKILL_NAME.test(name)) return;
  const skill = skills.get(name) ?? { name, level, files: new Map<string, string>() };
  skill.files.set(rel.slice(slash + 1), text);
  skills.set(name, skill);
}

const onlyWithSkillMd = (skills: Map<string, SkillFiles>) => [...skills.values()].filter((s) => s.files.has("SKILL.md")).sort((a, b) => (a.name < b.name ? -1 : 1));

/**
 * The repository's agent directories and skills at one commit, read from the host mirror with
 * `git ls-tree`/`cat-file`: what is committed, never the sandbox's writable checkout.
 */
export async function readRepoAgentFiles(mirror: string, commit: string): Promise<RepoAgentFiles> {
  const tree = (await lsTree(mirror, commit, [...PROJECT_AGENT_DIRS, SKILLS_DIR])).slice(0, MAX_ENTRIES * 3);
  const dirs: AgentDir[] = [];
  for (const dir of PROJECT_AGENT_DIRS) {
    const inDir = tree.filter((e) => e.path.startsWith(`${dir}/`)).slice(0, MAX_ENTRIES);
    dirs.push({ level: "project", dir, entries: await Promise.all(inDir.map((e) => entryFromTree(mirror, e, e.path.slice(dir.length + 1)))) });
  }
  const skills = new Map<string, SkillFiles>();
  for (const e of tree.filter((t) => t.path.startsWith(`${SKILLS_DIR}/`)).slice(0, MAX_ENTRIES)) {
    if (kindOf(e.mode) !== "file" || e.size > MAX_AGENT_FILE_BYTES) continue;
    addSkillFile(skills, "project", e.path.slice(SKILLS_DIR.length + 1), await blobText(mirror, e.oid));
  }
  return { dirs, skills: onlyWithSkillMd(skills) };
}

/** Walks a directory (no links followed) to a small depth; paths relative to `root`. */
async function walk(root: string, depth: number): Promise<Array<{ rel: string; kind: ListedEntry["kind"] }>> {
  const out: Array<{ rel: string; kind: ListedEntry["kind"] }> = [];
  const visit = async (rel: string, level: number): Promise<void> => {
    let names: string[];
    try {
      names = (await readdir(join(root, rel))).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (out.length >= MAX_ENTRIES) return;
      const child = rel ? `${rel}/${name}` : name;
      const st = await lstat(join(root, child)).catch(() => null);
      if (!st) continue;
      if (st.isDirectory()) {
        if (level < depth) await visit(child, level + 1);
      } else out.push({ rel: child, kind: st.isFile() ? "file" : st.isSymbolicLink() ? "link" : "other" });
    }
  };
  await visit("", 0);
  return out;
}

async function readSmall(path: string): Promise<{ text: string } | { unreadable: string }> {
  const st = await lstat(path);
  if (st.size > MAX_AGENT_FILE_BYTES) return { unreadable: `larger than ${MAX_AGENT_FILE_BYTES} bytes` };
  return { text: await readFile(path, "utf8") };
}

/** The requesting user's agent directories and skills under `USER_AGENTS_ROOT/<login>/`. */
export async function readUserAgentFiles(root: string, login: string): Promise<RepoAgentFiles> {
  if (!isLogin(login)) return { dirs: [], skills: [] };
  const home = join(root, login);
  const dirs: AgentDir[] = [];
  for (const dir of USER_AGENT_DIRS) {
    const base = join(home, dir);
    const entries: ListedEntry[] = [];
    for (const { rel, kind } of await walk(base, 3)) {
      const entry: ListedEntry = { path: rel, kind };
      if (kind === "file" && !rel.includes("/") && rel.endsWith(".md")) Object.assign(entry, await readSmall(join(base, rel)).catch((err: unknown) => ({ unreadable: (err as Error).message })));
      entries.push(entry);
    }
    dirs.push({ level: "user", dir: join(home, dir), entries });
  }
  const skills = new Map<string, SkillFiles>();
  const skillsBase = join(home, SKILLS_DIR);
  for (const { rel, kind } of await walk(skillsBase, 4)) {
    if (kind !== "file") continue;
    const read = await readSmall(join(skillsBase, rel)).catch(() => null);
    if (read && "text" in read) addSkillFile(skills, "user", rel, read.text);
  }
  return { dirs, skills: onlyWithSkillMd(skills) };
}
