import { AIMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { budgetStopMessage, estimateInputTokens, nextCallUsd, spentTokens, spentUsd, usd } from "../budget.js";
import type { RunMeter } from "../run-meter.js";
import { currentRunMessages } from "../current-run-messages.js";

export interface RunBudgetDeps {
  /** USD the run may spend: AGENT_MAX_BUDGET_USD or the repo's `agent.max_budget_usd` (the lower). */
  budgetUsd?: number | undefined;
  /**
   * Tokens the run may use (input, cached included, and output; the main agent's and the subagents'):
   * AGENT_MAX_BUDGET_TOKENS or the repo's `agent.max_budget_tokens` (the lower). A $0 model is capped too.
   */
  budgetTokens?: number | undefined;
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
      const nextTokens = estimateInputTokens(request.messages, request.systemPrompt ?? "");
      const next = nextCallUsd(nextTokens, deps.modelId, turns);
      const tokens = spentTokens(turns);
      const result =
        deps.budgetUsd !== undefined && spent + next > deps.budgetUsd
          ? budgetStopMessage(
              `Budget reached: the next model call would take this run past its budget of ${usd(deps.budgetUsd)} (spent ${usd(spent)} so far), so I stopped before it.`,
              spent,
              deps.budgetUsd,
            )
          : deps.budgetTokens !== undefined && tokens + nextTokens > deps.budgetTokens
            ? budgetStopMessage(
                `Budget reached: the next model call would take this run past its budget of ${deps.budgetTokens.toLocaleString("en-US")} tokens (used ${tokens.toLocaleString("en-US")} so far), so I stopped before it.`,
                tokens,
                deps.budgetTokens,
                "tokens",
              )
            : await handler(request);
      // What the main agent spent this run, this turn included: the subagents' view of the budget.
      if (deps.meter) deps.meter.parentSpentUsd = spentUsd(AIMessage.isInstance(result) ? [...run, result] : run, deps.modelId);
      return result;
    },
  });
}
