import { AIMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { budgetStopMessage, estimateInputTokens, nextCallUsd, spentUsd, usd } from "../budget.js";
import type { RunMeter } from "../run-meter.js";
import { currentRunMessages } from "../current-run-messages.js";

export interface RunBudgetDeps {
  /** USD the run may spend: AGENT_MAX_BUDGET_USD or the repo's `agent.max_budget_usd` (the lower). */
  budgetUsd: number;
  /** The run's model id, for prices. */
  modelId: string;
  /** The subagents' turns count against the same budget; the main agent's spend is published on it. */
  meter?: RunMeter;
}

/**
 * Stops the run before the model call that would take its cost past the budget: the cost so far (the
 * main agent's turns this run and every subagent's) plus the next call's estimated input. The model is
 * not called; a stop turn that says what was spent takes its place and the run ends normally.
 */
export function runBudgetMiddleware(deps: RunBudgetDeps) {
  return createMiddleware({
    name: "RunBudgetMiddleware",
    // All in the model's node (no hook after it, so no node and no checkpoint of its own per step).
    wrapModelCall: async (request, handler) => {
      const run = currentRunMessages(request.state.messages);
      const turns = [...run, ...(deps.meter?.subagentTurns ?? [])];
      const spent = spentUsd(turns, deps.modelId);
      const next = nextCallUsd(estimateInputTokens(request.messages, request.systemPrompt ?? ""), deps.modelId, turns);
      const result =
        spent + next > deps.budgetUsd
          ? budgetStopMessage(
              `Budget reached: the next model call would take this run past its budget of ${usd(deps.budgetUsd)} (spent ${usd(spent)} so far), so I stopped before it.`,
              spent,
              deps.budgetUsd,
            )
          : await handler(request);
      // What the main agent spent this run, this turn included: the subagents' view of the budget.
      if (deps.meter) deps.meter.parentSpentUsd = spentUsd(AIMessage.isInstance(result) ? [...run, result] : run, deps.modelId);
      return result;
    },
  });
}
