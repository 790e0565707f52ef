import type { HumanMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { runBudget } from "../agent/budget.js";
import type { AgentMiddlewareDeps } from "../agent/middleware/build-agent-middleware.js";
import type { RepoConfig } from "../config/repo-config.js";
import { errorMessage } from "../errors.js";
import { attachRequestImages } from "../github/request-images.js";
import type { AgentJob } from "../queue/schemas.js";
import { resolveRef } from "../sandbox/workspace/mirror.js";
import type { Profile, TeamModels } from "../store/settings-store.js";
import type { JobContext } from "../threads/job-context.js";
import { readContextAttachments, requestContextPaths, withContextBlocks } from "./context-attachments.js";
import type { InvokeAgentOptions } from "./invoke-agent.js";
import { agentFileLimits, loadRunAgents } from "./load-run-agents.js";
import type { RunWorkspace } from "./prepare-run-workspace.js";
import { resolveRunModel, type RunModel } from "./resolve-run-model.js";

/** Triggers whose text a person wrote: their images and `--context` paths are attached. */
const PERSON_TRIGGERS = ["comment", "issue_opened", "issue_labeled"];

export interface AgentInputs {
  message: HumanMessage;
  agents: NonNullable<InvokeAgentOptions["agents"]>;
  budget: Pick<AgentMiddlewareDeps, "budgetUsd" | "budgetTokens" | "budgetModelId">;
  /** For the reply: agent files that did not load. */
  note?: string;
}

/**
 * What a GitHub run adds to the agent beyond its tools: the repository's and the requester's agents
 * and skills, the request's screenshots and `--context` files, the run's budget.
 */
export async function prepareAgentInputs(o: {
  data: AgentJob;
  ctx: JobContext;
  ws: RunWorkspace;
  task: HumanMessage;
  tools: readonly StructuredToolInterface[];
  repoConfig: RepoConfig;
  runModel: RunModel;
  profile: Profile;
  team: TeamModels;
}): Promise<AgentInputs> {
  const { data, ctx, ws, runModel } = o;
  // Agent files come from the default branch in the host mirror (what the repo's people committed, like
  // `.github/open-swe.yml`), never from the run's branch or the sandbox: the agent cannot define its own.
  const agents = await loadRunAgents({
    mirror: ws.mirror,
    commit: ws.defaultSha ?? (await resolveRef(ws.mirror, `refs/heads/${ws.defaultBranch}`)),
    user: { root: ctx.config.userAgentsRoot, login: data.requester.login },
    runTools: o.tools.map((t) => t.name),
    limits: agentFileLimits(ctx.config),
    ...(runModel.settings.provider === "replay"
      ? {}
      : {
          makeModel: async (modelId: string) =>
            (await resolveRunModel({ role: "agent", profile: o.profile, team: o.team, repoConfig: o.repoConfig, config: ctx.config.model, thread: { modelId } })).model,
        }),
    log: ctx.log,
  }).catch((err: unknown) => {
    ctx.log.warn({ err: errorMessage(err) }, "agent files could not be read");
    return { agents: [], passedOver: [], skills: [], models: new Map(), note: `Agent files could not be read, so none were loaded: ${errorMessage(err)}` };
  });
  const person = PERSON_TRIGGERS.includes(data.trigger);
  // Screenshots are fetched here, host-side; `--context` paths are read from the mirror at the workspace's commit.
  const withImages = await attachRequestImages(data, o.task, { token: () => ctx.github.repoScopedToken(data.installationId, data.repo), signal: ctx.signal });
  const contextPaths = person ? requestContextPaths(data.text) : [];
  const message = withContextBlocks(withImages, contextPaths.length > 0 ? await readContextAttachments(ws.mirror, ws.sha, contextPaths) : []);
  return {
    message,
    agents: { resolved: agents.agents, models: agents.models, runModelId: runModel.settings.modelId, skills: agents.skills },
    budget: runBudget(runModel.settings.modelId, {
      usd: [ctx.config.env.AGENT_MAX_BUDGET_USD, o.repoConfig.agent.max_budget_usd],
      tokens: [ctx.config.env.AGENT_MAX_BUDGET_TOKENS, o.repoConfig.agent.max_budget_tokens],
    }),
    ...(agents.note ? { note: agents.note } : {}),
  };
}
