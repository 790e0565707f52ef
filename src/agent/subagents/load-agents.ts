import { GENERAL_PURPOSE_SUBAGENT } from "deepagents";
import type { CommitTree } from "../../shared/commit-tree.js";
import type { AgentDefinition } from "./agent-definition.js";
import { AgentFileBudget, readRepoAgentFiles, readUserAgentFiles, type AgentFileLimits, type SkillFiles } from "./read-agent-dirs.js";
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
  /** Agent files and skills not read: past the run's budget (`AgentFileLimits`), named. */
  leftOut: string[];
}

export interface LoadAgentsInput {
  /** The repository at one commit, read from the host mirror (project level). */
  repo?: CommitTree;
  /** USER_AGENTS_ROOT and the requesting user's login (user level). */
  user?: { root: string; login: string };
  programmatic?: readonly AgentDefinition[];
  /** Host-side tools of the run a file agent may name (besides the file tools). */
  runTools: readonly string[];
  /** The whole run's agent and skill files (default: 2 MB, 50 agents, 100 skills). */
  limits?: AgentFileLimits;
}

/** Reads the project and user levels and resolves them with the built-ins (seed 003). */
export async function loadAgents(input: LoadAgentsInput): Promise<LoadedAgents> {
  // One budget for the run, the project's files first: what is past it is named, not read.
  const budget = new AgentFileBudget(input.limits);
  const repo = input.repo ? await readRepoAgentFiles(input.repo, budget) : { dirs: [] as AgentDir[], skills: [] as SkillFiles[] };
  const user = input.user ? await readUserAgentFiles(input.user.root, input.user.login, budget) : { dirs: [] as AgentDir[], skills: [] as SkillFiles[] };
  const skills = [...repo.skills, ...user.skills.filter((s) => !repo.skills.some((p) => p.name === s.name))];
  const resolution = resolveAgents({
    ...(input.programmatic ? { programmatic: input.programmatic } : {}),
    dirs: [...repo.dirs, ...user.dirs],
    builtins: BUILTIN_AGENTS,
    knownTools: new Set([...FILE_TOOL_NAMES, ...input.runTools]),
    knownSkills: new Set(skills.map((s) => s.name)),
  });
  return { ...resolution, skills, leftOut: budget.leftOut };
}

const LEFT_OUT_SHOWN = 10;

/** The run reply's note on agent files that were not loaded (invalid, or past the budget), or undefined when all were. */
export function skippedAgentsNote(resolution: AgentResolution & { leftOut?: readonly string[] }): string | undefined {
  const bad = resolution.passedOver.filter((p) => p.reason === "parse_error");
  const left = resolution.leftOut ?? [];
  const lines: string[] = [];
  if (bad.length > 0) lines.push(`Skipped agent file(s) that could not be loaded:`, ...bad.map((p) => `- \`${p.file}\`: ${p.detail ?? "invalid"}`));
  if (left.length > 0) {
    lines.push(`Left out of this run, past its budget for agent and skill files (${left.length}):`, ...left.slice(0, LEFT_OUT_SHOWN).map((l) => `- ${l}`));
    if (left.length > LEFT_OUT_SHOWN) lines.push(`- … and ${left.length - LEFT_OUT_SHOWN} more`);
  }
  return lines.length > 0 ? lines.join("\n") : undefined;
}
