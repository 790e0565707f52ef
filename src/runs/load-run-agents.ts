import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { Logger } from "pino";
import { errorMessage } from "../errors.js";
import { loadAgents, skippedAgentsNote, type LoadedAgents } from "../agent/subagents/load-agents.js";
import { keysNotActedOnNote } from "../agent/subagents/permission-policy.js";

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
}): Promise<RunAgents> {
  const loaded = await loadAgents({ repo: { mirror: o.mirror, commit: o.commit }, ...(o.user ? { user: o.user } : {}), runTools: o.runTools });
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
  const note = [skippedAgentsNote(loaded), keysNotActedOnNote(loaded.agents)].filter(Boolean).join("\n\n") || undefined;
  return { ...loaded, models, ...(note ? { note } : {}) };
}
