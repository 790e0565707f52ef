import { existsSync } from "node:fs";
import { basename, resolve } from "node:path";
import type { AppConfig } from "../config/env.js";
import { OpenSweError } from "../errors.js";
import { remoteUrl } from "../runs/branch-name.js";
import { classifyRepoArg } from "../runs/repo-arg.js";
import { localRepoRefusal } from "../runs/local-repo-refusal.js";
import { hostGit } from "../sandbox/workspace/host-git.js";
import { ensureMirror, resolveRef } from "../sandbox/workspace/mirror.js";
import { mirrorCommitTree } from "../sandbox/workspace/mirror-commit-tree.js";
import type { CommitTree } from "../shared/commit-tree.js";
import { loadAgents } from "../agent/subagents/load-agents.js";
import { isLogin } from "../agent/subagents/read-agent-dirs.js";
import { AGENTS_COMMANDS } from "./agents-commands.js";
import { parseCommand } from "../shared/parse-command.js";
import { agentToolNames, effectivePolicy, keysNotActedOn } from "../agent/subagents/permission-policy.js";
import { resolveRunToolPolicies } from "../config/tool-policy.js";
import { RUN_SIDE_EFFECT_TOOLS } from "../runs/run-tool-names.js";

export class AgentsUsageError extends OpenSweError<"agents_usage"> {
  constructor(message: string) {
    super("agents_usage", message);
  }
}

/** The repository's committed state in the host mirror, as `open-swe run` sees it: a path at HEAD, owner/name at its default branch. */
async function mirrorAt(config: AppConfig, repo: string): Promise<CommitTree> {
  const arg = classifyRepoArg(repo, existsSync);
  if (arg.kind === "error") throw new AgentsUsageError(arg.message);
  if (arg.kind === "path") {
    const source = resolve(arg.path);
    const head = await hostGit(["-C", source, "rev-parse", "--verify", "HEAD^{commit}"]).catch((err: unknown) => {
      throw new AgentsUsageError(localRepoRefusal(repo, err));
    });
    const name = `local/${basename(source).replace(/[^A-Za-z0-9_.-]/g, "-")}`;
    const mirror = await ensureMirror({ mirrorRoot: config.sandbox.mirrorRoot, repo: name, remoteUrl: source });
    return mirrorCommitTree(mirror, head.trim());
  }
  const [owner, name] = arg.repo.split("/") as [string, string];
  const mirror = await ensureMirror({ mirrorRoot: config.sandbox.mirrorRoot, repo: arg.repo, remoteUrl: remoteUrl(config.gitRemoteTemplate, owner, name) });
  return mirrorCommitTree(mirror, await resolveRef(mirror, "HEAD"));
}

/**
 * `open-swe agents list`: every resolved agent (where it came from) and every file passed over (why
 * another definition won, or why it did not load), as JSON. `runTools`: every host-side tool a run can
 * have (`runToolNames()`, read off the tool factories by the caller).
 */
export async function runAgentsCli(argv: string[], config: AppConfig, out: (text: string) => void, runTools: readonly string[]): Promise<void> {
  const [verb, ...rest] = argv;
  if (verb !== "list") throw new AgentsUsageError(verb ? `unknown command "agents ${verb}": the one command is agents list` : "missing command: agents list");
  const args = parseCommand("agents list", AGENTS_COMMANDS["agents list"], rest);
  const repo = args.string("repo");
  const user = args.string("user");
  if (!repo) throw new AgentsUsageError("agents list needs --repo <path|owner/name> (see open-swe agents list --help)");
  if (user !== undefined && !isLogin(user)) throw new AgentsUsageError(`"${user}" is not a GitHub login`);
  const loaded = await loadAgents({ repo: await mirrorAt(config, repo), ...(user ? { user: { root: config.userAgentsRoot, login: user } } : {}), runTools });
  const agents = loaded.agents.map(({ definition: d, source, file }) => ({
    name: d.name,
    source,
    file: file ?? null,
    description: d.description,
    tools: d.tools ?? null,
    skills: d.skills,
    model: d.model,
    permissionMode: d.permissionMode ?? null,
    // Built-in defaults with permission_mode applied; a repository's or team's tool policies apply on top at run time.
    effectivePolicy: effectivePolicy(d.permissionMode, agentToolNames(d), resolveRunToolPolicies(agentToolNames(d), {}), RUN_SIDE_EFFECT_TOOLS),
    notActedOn: keysNotActedOn(d),
    maxIterationPerRun: d.maxIterationPerRun ?? null,
    maxBudgetPerRun: d.maxBudgetPerRun ?? null,
    whenToUseExamples: d.whenToUseExamples,
    metadata: d.metadata,
    color: d.color ?? null,
    hooks: d.hooks ?? null,
    mcpConfig: d.mcpConfig ?? null,
    condenser: d.condenser,
  }));
  const skills = loaded.skills.map((s) => ({ name: s.name, source: s.level }));
  out(`${JSON.stringify({ agents, passedOver: loaded.passedOver, skills }, null, 2)}\n`);
}
