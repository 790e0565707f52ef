import { posix } from "node:path";
import { AgentParseError, parseAgentFile, type AgentDefinition } from "./agent-definition.js";

export type AgentSource = "programmatic" | "project" | "user" | "builtin";

/** One entry under an agents directory, as a reader found it (a path relative to that directory). */
export interface ListedEntry {
  /** e.g. `reviewer.md`, `nested/x.md`. */
  path: string;
  kind: "file" | "link" | "other";
  /** Contents of a top-level `*.md` file the reader could read. */
  text?: string;
  /** Why the reader could not give the text (too large, unreadable). */
  unreadable?: string;
}

/** One agents directory of a level, in precedence order within the level. */
export interface AgentDir {
  level: "project" | "user";
  /** How files of this directory are named in output: `.agents/agents` or `<root>/alice/.agents/agents`. */
  dir: string;
  entries: readonly ListedEntry[];
}

export interface ResolvedAgent {
  definition: AgentDefinition;
  source: AgentSource;
  /** The file it came from; undefined for programmatic and built-in agents. */
  file?: string;
}

export interface PassedOver {
  file: string;
  reason: "shadowed" | "parse_error" | "readme" | "not_top_level";
  /** shadowed: the file (or source) of the definition that won; parse_error: what was wrong. */
  by?: string;
  detail?: string;
}

export interface AgentResolution {
  agents: ResolvedAgent[];
  passedOver: PassedOver[];
}

export interface ResolveAgentsInput {
  programmatic?: readonly AgentDefinition[];
  dirs: readonly AgentDir[];
  builtins?: readonly AgentDefinition[];
  /** Tools a file agent may name; an unknown one is that file's error. */
  knownTools: ReadonlySet<string>;
  /** Skills a file agent may name; an unknown one is that file's error. */
  knownSkills: ReadonlySet<string>;
}

const README = /^readme\.md$/i;
const byName = (a: ListedEntry, b: ListedEntry) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

function check(def: AgentDefinition, input: ResolveAgentsInput): void {
  const tool = def.tools?.find((t) => !input.knownTools.has(t));
  if (tool !== undefined) throw new AgentParseError(`unknown tool "${tool}" (known: ${[...input.knownTools].sort().join(", ")})`);
  const skill = def.skills.find((s) => !input.knownSkills.has(s));
  if (skill !== undefined)
    throw new AgentParseError(`unknown skill "${skill}"${input.knownSkills.size ? ` (known: ${[...input.knownSkills].sort().join(", ")})` : " (the repository and the user define none)"}`);
}

/**
 * Seed 003's resolution (pure): first registration wins — programmatic > project > user > built-in;
 * within a level the first directory wins; files in sorted order; only top-level `*.md`, README
 * skipped; a file that fails to parse (or names an unknown tool or skill) is passed over with the
 * reason, and the rest load.
 */
export function resolveAgents(input: ResolveAgentsInput): AgentResolution {
  const agents: ResolvedAgent[] = [];
  const passedOver: PassedOver[] = [];
  const winner = new Map<string, string>();
  const register = (definition: AgentDefinition, source: AgentSource, file?: string) => {
    const by = winner.get(definition.name);
    if (by !== undefined) {
      if (file) passedOver.push({ file, reason: "shadowed", by });
      return;
    }
    winner.set(definition.name, file ?? source);
    agents.push({ definition, source, ...(file ? { file } : {}) });
  };
  for (const def of input.programmatic ?? []) register(def, "programmatic");
  for (const level of ["project", "user"] as const) {
    for (const dir of input.dirs.filter((d) => d.level === level)) {
      for (const entry of [...dir.entries].sort(byName)) {
        if (!entry.path.endsWith(".md")) continue;
        const file = posix.join(dir.dir, entry.path);
        if (entry.path.includes("/")) {
          passedOver.push({ file, reason: "not_top_level" });
          continue;
        }
        if (README.test(entry.path)) {
          passedOver.push({ file, reason: "readme" });
          continue;
        }
        try {
          if (entry.kind !== "file") throw new AgentParseError(entry.kind === "link" ? "a symbolic link, not a file" : "not a regular file");
          if (entry.text === undefined) throw new AgentParseError(entry.unreadable ?? "unreadable");
          const def = parseAgentFile(entry.text, entry.path.slice(0, -".md".length));
          check(def, input);
          register(def, level, file);
        } catch (err) {
          if (!(err instanceof AgentParseError)) throw err;
          passedOver.push({ file, reason: "parse_error", detail: err.reason });
        }
      }
    }
  }
  for (const def of input.builtins ?? []) register(def, "builtin");
  return { agents, passedOver };
}
