import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { Logger } from "pino";
import { errorMessage } from "../errors.js";
import { loadAgents, skippedAgentsNote, type LoadedAgents } from "../agent/subagents/load-agents.js";
import { keysNotActedOnNote } from "../agent/subagents/permission-policy.js";
import type { AgentFileLimits } from "../agent/subagents/read-agent-dirs.js";
import type { AppConfig } from "../config/env.js";
import { mirrorCommitTree } from "../sandbox/workspace/mirror-commit-tree.js";

/** `AGENT_FILES_MAX_MB` / `_AGENTS` / `_SKILLS`: the run's budget for agent and skill files. */
export const agentFileLimits = (config: AppConfig): AgentFileLimits => ({
  maxBytes: config.env.AGENT_FILES_MAX_MB * 1024 * 1024,
  maxAgents: config.env.AGENT_FILES_MAX_AGENTS,
  maxSkills: config.env.AGENT_FILES_MAX_SKILLS,
});

export interface RunAgents extends LoadedAgents {
  models: Map<string, BaseChatModel>;
  /** For the run's reply: the agent files that could not be loaded, with why. */
  note?: string;
}

/**
 * The run's file-based agents: the repository's at `commit` in the host mirror, the requester's under
 * USER_AGENTS_ROOT, the built-ins. A file that does not load is a warning (file + reason) and a line in
 * the reply; an agent whose model cannot be built (no key) is left out the same way.
 */
export async function loadRunAgents(o: {
  mirror: string;
  commit: string;
  user?: { root: string; login: string };
  runTools: readonly string[];
  /** Builds a model an agent names; undefined: agents use the run's model (a replayed run). */
  makeModel?: (modelId: string) => Promise<BaseChatModel>;
  log: Pick<Logger, "warn">;
  limits?: AgentFileLimits;
}): Promise<RunAgents> {
  const loaded = await loadAgents({ repo: mirrorCommitTree(o.mirror, o.commit), ...(o.user ? { user: o.user } : {}), runTools: o.runTools, ...(o.limits ? { limits: o.limits } : {}) });
  const models = new Map<string, BaseChatModel>();
  if (o.makeModel) {
    for (const id of new Set(loaded.agents.map((a) => a.definition.model).filter((m) => m !== "inherit"))) {
      try {
        models.set(id, await o.makeModel(id));
      } catch (err) {
        for (const a of loaded.agents.filter((x) => x.definition.model === id && x.file)) loaded.passedOver.push({ file: a.file!, reason: "parse_error", detail: `model ${id}: ${errorMessage(err)}` });
        loaded.agents = loaded.agents.filter((x) => x.definition.model !== id || !x.file);
      }
    }
  }
  for (const p of loaded.passedOver.filter((x) => x.reason === "parse_error")) o.log.warn({ file: p.file, reason: p.detail }, "agent file skipped");
  if (loaded.leftOut.length > 0) o.log.warn({ leftOut: loaded.leftOut.length, first: loaded.leftOut[0] }, "agent files left out: past the run's budget");
  const note = [skippedAgentsNote(loaded), keysNotActedOnNote(loaded.agents)].filter(Boolean).join("\n\n") || undefined;
  return { ...loaded, models, ...(note ? { note } : {}) };
}
