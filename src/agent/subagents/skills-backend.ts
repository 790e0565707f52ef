import type { BackendProtocolV2, EditResult, FileDownloadResponse, FileInfo, GlobResult, GrepResult, LsResult, ReadRawResult, ReadResult, WriteResult } from "deepagents";
import micromatch from "micromatch";
import type { SkillFiles } from "./read-agent-dirs.js";

/** Where the run's skills appear in the agent's file tools; the sandbox never holds them. */
export const SKILLS_MOUNT = "/skills/";

const READ_ONLY = "skills are read-only here: they come from the repository (or your user directory), not the sandbox";

/** deepagents' own matching for its file tools (micromatch, these options): the same glob means the same here. */
const GLOB = { dot: true, nobrace: false } as const;

/**
 * The run's skills as a read-only file tree (`/<skill>/SKILL.md`, …), mounted at SKILLS_MOUNT through
 * deepagents' CompositeBackend: read from the host mirror (or USER_AGENTS_ROOT) by the worker, never
 * written into the sandbox, never writable by the agent.
 */
export class SkillsBackend implements BackendProtocolV2 {
  readonly #files = new Map<string, string>();

  constructor(skills: readonly SkillFiles[]) {
    for (const s of skills) for (const [rel, text] of s.files) this.#files.set(`/${s.name}/${rel}`, text);
  }

  ls(path: string): LsResult {
    const dir = path.endsWith("/") ? path : `${path}/`;
    const seen = new Map<string, FileInfo>();
    for (const [p, text] of this.#files) {
      if (!p.startsWith(dir)) continue;
      const rest = p.slice(dir.length);
      const slash = rest.indexOf("/");
      const entry = slash < 0 ? { path: p, is_dir: false, size: text.length } : { path: `${dir}${rest.slice(0, slash)}/`, is_dir: true };
      seen.set(entry.path, entry);
    }
    return { files: [...seen.values()].sort((a, b) => (a.path < b.path ? -1 : 1)) };
  }

  read(filePath: string, offset = 0, limit = 500): ReadResult {
    const text = this.#files.get(filePath);
    if (text === undefined) return { error: `file not found: ${filePath}` };
    const lines = text.split("\n");
    return { content: lines.slice(offset, offset + limit).join("\n"), mimeType: "text/markdown", totalLines: lines.length };
  }

  readRaw(filePath: string): ReadRawResult {
    const text = this.#files.get(filePath);
    if (text === undefined) return { error: `file not found: ${filePath}` };
    const at = new Date(0).toISOString();
    return { data: { content: text, mimeType: "text/markdown", created_at: at, modified_at: at } };
  }

  grep(pattern: string, path?: string | null, glob?: string | null): GrepResult {
    const matches: Array<{ path: string; line: number; text: string }> = [];
    for (const [p, text] of this.#files) {
      if (path && !p.startsWith(path)) continue;
      if (glob && !micromatch.isMatch(p.slice(p.lastIndexOf("/") + 1), glob, GLOB)) continue;
      text.split("\n").forEach((line, i) => {
        if (line.includes(pattern)) matches.push({ path: p, line: i + 1, text: line });
      });
    }
    return { matches };
  }

  glob(pattern: string, path = "/"): GlobResult {
    const base = path.endsWith("/") ? path : `${path}/`;
    const relative = pattern.replace(/^\//, "");
    return {
      files: [...this.#files.keys()].filter((p) => p.startsWith(base) && micromatch.isMatch(p.slice(base.length), relative, GLOB)).map((p) => ({ path: p, is_dir: false })),
    };
  }

  write(): WriteResult {
    return { error: READ_ONLY };
  }

  edit(): EditResult {
    return { error: READ_ONLY };
  }

  downloadFiles(paths: string[]): FileDownloadResponse[] {
    return paths.map((path) => {
      const text = this.#files.get(path);
      return text === undefined ? { path, content: null, error: "file_not_found" } : { path, content: new TextEncoder().encode(text), error: null };
    });
  }
}
