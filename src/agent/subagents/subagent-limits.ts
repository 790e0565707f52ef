import { createMiddleware } from "langchain";
import { budgetStopMessage, estimateInputTokens, nextCallUsd, spentUsd, usd } from "../budget.js";
import type { RunMeter } from "../run-meter.js";

export interface SubagentLimitsDeps {
  agent: string;
  /** The subagent's model id (its own, or the run's when it inherits), for prices. */
  modelId: string;
  meter: RunMeter;
  maxIterationPerRun?: number;
  maxBudgetPerRun?: number;
  /** The run's budget: a subagent call that would cross it is not made either (set by the run's subagent stack). */
  runBudgetUsd?: number;
  /** Middleware names are unique per agent: the run stack's budget check and the file's limits are two. */
  name?: string;
}

/**
 * A file agent's `max_iteration_per_run` (its model calls over the whole run) and `max_budget_per_run`
 * (its USD over the whole run), and the run's budget: at a limit the model is not called; the
 * subagent ends on a turn that tells the parent why, which the parent receives as the `task` result.
 */
export function subagentLimitsMiddleware(deps: SubagentLimitsDeps) {
  const { agent, meter } = deps;
  return createMiddleware({
    name: deps.name ?? "SubagentLimitsMiddleware",
    wrapModelCall: async (request, handler) => {
      const own = meter.turnsOf(agent);
      if (deps.maxIterationPerRun !== undefined && own.length >= deps.maxIterationPerRun) {
        return budgetStopMessage(
          `Stopped: subagent "${agent}" reached its max_iteration_per_run of ${deps.maxIterationPerRun} model calls for this run. Its work so far is above; carry on without it.`,
          spentUsd(own, deps.modelId),
          0,
        );
      }
      const next = nextCallUsd(estimateInputTokens(request.messages, request.systemPrompt ?? ""), deps.modelId, own);
      const spent = spentUsd(own, deps.modelId);
      if (deps.maxBudgetPerRun !== undefined && spent + next > deps.maxBudgetPerRun) {
        return budgetStopMessage(
          `Stopped: subagent "${agent}" would pass its max_budget_per_run of ${usd(deps.maxBudgetPerRun)} with its next model call (spent ${usd(spent)}). Carry on without it.`,
          spent,
          deps.maxBudgetPerRun,
        );
      }
      if (deps.runBudgetUsd !== undefined) {
        const runSpent = meter.parentSpentUsd + spentUsd(meter.subagentTurns, deps.modelId);
        if (runSpent + next > deps.runBudgetUsd) {
          return budgetStopMessage(
            `Stopped: subagent "${agent}"'s next model call would take the run past its budget of ${usd(deps.runBudgetUsd)} (spent ${usd(runSpent)}).`,
            runSpent,
            deps.runBudgetUsd,
          );
        }
      }
      return handler(request);
    },
  });
}
