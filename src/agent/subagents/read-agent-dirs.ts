import { lstat, readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { hostGit, hostGitBytes } from "../../sandbox/workspace/host-git.js";
import type { AgentDir, ListedEntry } from "./resolve-agents.js";

/** A file bigger than this is not read (an agent definition or a skill file is a page of text). */
export const MAX_AGENT_FILE_BYTES = 256 * 1024;
/** At most this many entries per directory tree are looked at: a huge tree is cut, never walked whole. */
const MAX_ENTRIES = 500;

/** The whole run's agent and skill files: total bytes and counts, over both levels (project first). */
export interface AgentFileLimits {
  maxBytes: number;
  maxAgents: number;
  maxSkills: number;
}

export const DEFAULT_AGENT_FILE_LIMITS: AgentFileLimits = { maxBytes: 2 * 1024 * 1024, maxAgents: 50, maxSkills: 100 };

/** What one run has read so far, and what it left out (named, for the reply). */
export class AgentFileBudget {
  bytes = 0;
  agents = 0;
  skills = 0;
  readonly leftOut: string[] = [];
  constructor(readonly limits: AgentFileLimits = DEFAULT_AGENT_FILE_LIMITS) {}

  /** May an agent file of `size` bytes be read? If not, it is recorded as left out. */
  takeAgent(path: string, size: number): boolean {
    if (this.agents >= this.limits.maxAgents) return this.leave(`agent file \`${path}\` (past ${this.limits.maxAgents} agents)`);
    if (this.bytes + size > this.limits.maxBytes) return this.leave(`agent file \`${path}\` (past ${fmtMb(this.limits.maxBytes)} of agent and skill files)`);
    this.agents++;
    this.bytes += size;
    return true;
  }

  /** May a skill of `size` bytes (all its files) be read? */
  takeSkill(name: string, size: number): boolean {
    if (this.skills >= this.limits.maxSkills) return this.leave(`skill \`${name}\` (past ${this.limits.maxSkills} skills)`);
    if (this.bytes + size > this.limits.maxBytes) return this.leave(`skill \`${name}\` (past ${fmtMb(this.limits.maxBytes)} of agent and skill files)`);
    this.skills++;
    this.bytes += size;
    return true;
  }

  private leave(what: string): false {
    this.leftOut.push(what);
    return false;
  }
}

const fmtMb = (n: number) => `${Number((n / (1024 * 1024)).toFixed(2))} MB`;

/** Many blobs in one `git cat-file --batch` (not a process per file): oid → text. */
async function readBlobs(mirror: string, oids: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const unique = [...new Set(oids)];
  if (unique.length === 0) return out;
  const raw = await hostGitBytes(["-C", mirror, "cat-file", "--batch"], { stdin: Buffer.from(unique.join("\n") + "\n") });
  let at = 0;
  while (at < raw.length) {
    const nl = raw.indexOf(10, at);
    if (nl < 0) break;
    const [oid = "", type = "", size = ""] = raw.subarray(at, nl).toString("latin1").split(" ");
    if (type === "missing" || size === "") {
      at = nl + 1;
      continue;
    }
    const n = Number(size);
    out.set(oid, raw.subarray(nl + 1, nl + 1 + n).toString("utf8"));
    at = nl + 1 + n + 1;
  }
  return out;
}

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
/**
 * Listings by mirror and full commit id: a commit's tree never changes, so a warm thread's next run
 * lists nothing again. Keyed by the mirror's path (one per repository), never shared across repositories.
 */
const listings = new Map<string, TreeEntry[]>();
const LISTINGS_KEPT = 256;
const FULL_OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

async function lsTree(mirror: string, commit: string, dirs: readonly string[]): Promise<TreeEntry[]> {
  const key = `${mirror}\0${commit}\0${dirs.join("\0")}`;
  const known = listings.get(key);
  if (known) return known;
  const entries = await listTree(mirror, commit, dirs);
  if (FULL_OID.test(commit)) {
    if (listings.size >= LISTINGS_KEPT) listings.delete(listings.keys().next().value!);
    listings.set(key, entries);
  }
  return entries;
}

async function listTree(mirror: string, commit: string, dirs: readonly string[]): Promise<TreeEntry[]> {
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

const kindOf = (mode: string): ListedEntry["kind"] => (mode === "100644" || mode === "100755" ? "file" : mode === "120000" ? "link" : "other");

/** A tree entry as the resolver sees it; an agent file to read is listed in `reads` (its text filled in later). */
function entryFromTree(e: TreeEntry, rel: string, dir: string, budget: AgentFileBudget, reads: Array<{ entry: ListedEntry; oid: string }>): ListedEntry | null {
  const kind = kindOf(e.mode);
  const entry: ListedEntry = { path: rel, kind };
  if (kind !== "file" || rel.includes("/") || !rel.endsWith(".md")) return entry;
  if (e.size > MAX_AGENT_FILE_BYTES) return { ...entry, unreadable: `larger than ${MAX_AGENT_FILE_BYTES} bytes` };
  if (/^readme\.md$/i.test(rel)) return entry;
  if (!budget.takeAgent(`${dir}/${rel}`, e.size)) return null;
  reads.push({ entry, oid: e.oid });
  return entry;
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
export async function readRepoAgentFiles(mirror: string, commit: string, budget: AgentFileBudget = new AgentFileBudget()): Promise<RepoAgentFiles> {
  const tree = (await lsTree(mirror, commit, [...PROJECT_AGENT_DIRS, SKILLS_DIR])).slice(0, MAX_ENTRIES * 3);
  const reads: Array<{ entry: ListedEntry; oid: string }> = [];
  const dirs: AgentDir[] = [];
  for (const dir of PROJECT_AGENT_DIRS) {
    const inDir = tree.filter((e) => e.path.startsWith(`${dir}/`)).slice(0, MAX_ENTRIES);
    const entries = inDir.map((e) => entryFromTree(e, e.path.slice(dir.length + 1), dir, budget, reads)).filter((x): x is ListedEntry => x !== null);
    dirs.push({ level: "project", dir, entries });
  }
  // Skills whole or not at all: a skill's files are taken together, in name order, while the budget lasts.
  const bySkill = new Map<string, TreeEntry[]>();
  for (const e of tree.filter((t) => t.path.startsWith(`${SKILLS_DIR}/`)).slice(0, MAX_ENTRIES)) {
    if (kindOf(e.mode) !== "file" || e.size > MAX_AGENT_FILE_BYTES) continue;
    const rel = e.path.slice(SKILLS_DIR.length + 1);
    const name = rel.slice(0, Math.max(0, rel.indexOf("/")));
    if (!SKILL_NAME.test(name)) continue;
    bySkill.set(name, [...(bySkill.get(name) ?? []), e]);
  }
  const chosen: TreeEntry[] = [];
  for (const [name, files] of [...bySkill].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (!files.some((f) => f.path === `${SKILLS_DIR}/${name}/SKILL.md`)) continue;
    if (
      budget.takeSkill(
        name,
        files.reduce((n, f) => n + f.size, 0),
      )
    )
      chosen.push(...files);
  }
  const texts = await readBlobs(mirror, [...reads.map((r) => r.oid), ...chosen.map((f) => f.oid)]);
  for (const r of reads) r.entry.text = texts.get(r.oid) ?? "";
  const skills = new Map<string, SkillFiles>();
  for (const f of chosen) addSkillFile(skills, "project", f.path.slice(SKILLS_DIR.length + 1), texts.get(f.oid) ?? "");
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
export async function readUserAgentFiles(root: string, login: string, budget: AgentFileBudget = new AgentFileBudget()): Promise<RepoAgentFiles> {
  if (!isLogin(login)) return { dirs: [], skills: [] };
  const home = join(root, login);
  const dirs: AgentDir[] = [];
  for (const dir of USER_AGENT_DIRS) {
    const base = join(home, dir);
    const entries: ListedEntry[] = [];
    for (const { rel, kind } of await walk(base, 3)) {
      const entry: ListedEntry = { path: rel, kind };
      if (kind === "file" && !rel.includes("/") && rel.endsWith(".md") && !/^readme\.md$/i.test(rel)) {
        const size = (await lstat(join(base, rel)).catch(() => null))?.size ?? 0;
        if (size <= MAX_AGENT_FILE_BYTES && !budget.takeAgent(`~${login}/${dir}/${rel}`, size)) continue;
        Object.assign(entry, await readSmall(join(base, rel)).catch((err: unknown) => ({ unreadable: (err as Error).message })));
      }
      entries.push(entry);
    }
    dirs.push({ level: "user", dir: join(home, dir), entries });
  }
  const skills = new Map<string, SkillFiles>();
  const skillsBase = join(home, SKILLS_DIR);
  const bySkill = new Map<string, string[]>();
  for (const { rel, kind } of await walk(skillsBase, 4)) {
    const name = rel.slice(0, Math.max(0, rel.indexOf("/")));
    if (kind === "file" && SKILL_NAME.test(name)) bySkill.set(name, [...(bySkill.get(name) ?? []), rel]);
  }
  for (const [name, rels] of [...bySkill].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (!rels.includes(`${name}/SKILL.md`)) continue;
    const sizes = await Promise.all(rels.map(async (r) => (await lstat(join(skillsBase, r)).catch(() => null))?.size ?? 0));
    if (
      !budget.takeSkill(
        `~${login}/${name}`,
        sizes.reduce((n, s) => n + Math.min(s, MAX_AGENT_FILE_BYTES), 0),
      )
    )
      continue;
    for (const rel of rels) {
      const read = await readSmall(join(skillsBase, rel)).catch(() => null);
      if (read && "text" in read) addSkillFile(skills, "user", rel, read.text);
    }
  }
  return { dirs, skills: onlyWithSkillMd(skills) };
}
