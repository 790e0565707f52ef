import { GENERAL_PURPOSE_SUBAGENT } from "deepagents";
import type { AgentDefinition } from "./agent-definition.js";
import { readRepoAgentFiles, readUserAgentFiles, type SkillFiles } from "./read-agent-dirs.js";
import { resolveAgents, type AgentDir, type AgentResolution } from "./resolve-agents.js";

/** deepagents' file tools: every subagent has them unless its file lists its tools. */
export const FILE_TOOL_NAMES = ["ls", "read_file", "write_file", "edit_file", "delete", "glob", "grep", "execute"] as const;

/** The built-in agents: deepagents' general-purpose subagent (our run gives it the file tools only). */
export const BUILTIN_AGENTS: readonly AgentDefinition[] = [
  {
    name: GENERAL_PURPOSE_SUBAGENT.name,
    description: GENERAL_PURPOSE_SUBAGENT.description,
    skills: [],
    model: "inherit",
    condenser: { kind: "default" },
    whenToUseExamples: [],
    metadata: {},
    prompt: "",
  },
];

export interface LoadedAgents extends AgentResolution {
  /** Skills by name, project over user. */
  skills: SkillFiles[];
}

export interface LoadAgentsInput {
  /** The repository at one commit in the host mirror (project level). */
  repo?: { mirror: string; commit: string };
  /** USER_AGENTS_ROOT and the requesting user's login (user level). */
  user?: { root: string; login: string };
  programmatic?: readonly AgentDefinition[];
  /** Host-side tools of the run a file agent may name (besides the file tools). */
  runTools: readonly string[];
}

/** Reads the project and user levels and resolves them with the built-ins (seed 003). */
export async function loadAgents(input: LoadAgentsInput): Promise<LoadedAgents> {
  const [repo, user] = await Promise.all([
    input.repo ? readRepoAgentFiles(input.repo.mirror, input.repo.commit) : { dirs: [] as AgentDir[], skills: [] as SkillFiles[] },
    input.user ? readUserAgentFiles(input.user.root, input.user.login) : { dirs: [] as AgentDir[], skills: [] as SkillFiles[] },
  ]);
  const skills = [...repo.skills, ...user.skills.filter((s) => !repo.skills.some((p) => p.name === s.name))];
  const resolution = resolveAgents({
    ...(input.programmatic ? { programmatic: input.programmatic } : {}),
    dirs: [...repo.dirs, ...user.dirs],
    builtins: BUILTIN_AGENTS,
    knownTools: new Set([...FILE_TOOL_NAMES, ...input.runTools]),
    knownSkills: new Set(skills.map((s) => s.name)),
  });
  return { ...resolution, skills };
}

/** The run reply's note on agent files that were not loaded, or undefined when all were. */
export function skippedAgentsNote(resolution: AgentResolution): string | undefined {
  const bad = resolution.passedOver.filter((p) => p.reason === "parse_error");
  if (bad.length === 0) return undefined;
  return [`Skipped agent file(s) that could not be loaded:`, ...bad.map((p) => `- \`${p.file}\`: ${p.detail ?? "invalid"}`)].join("\n");
}
