import { AIMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { isModelCallLimitMessage } from "./middleware/model-call-limit.js";

/**
 * One run's shared accounting across the main agent and its `task` subagents: the subagents' model
 * turns (their usage and model) and tool calls, which never reach the main conversation, and the main
 * agent's call count, so both draw on one model-call budget.
 */
export class RunMeter {
  /** Model calls the main agent made this run (mirrors its graph state). */
  parentCalls = 0;
  readonly subagentTurns: AIMessage[] = [];
  readonly subagentToolCounts: Record<string, number> = {};
  /** Each named subagent's turns this run (for its `max_iteration_per_run` and `max_budget_per_run`). */
  readonly turnsByAgent = new Map<string, AIMessage[]>();
  /** USD the main agent spent this run so far (kept by the run budget), for the subagents' view of the budget. */
  parentSpentUsd = 0;

  turnsOf(agent: string): readonly AIMessage[] {
    return this.turnsByAgent.get(agent) ?? [];
  }

  get calls(): number {
    return this.parentCalls + this.subagentTurns.length;
  }
}

/** In a subagent: records each model turn and tool call on the run's meter. */
export function subagentMeterMiddleware(meter: RunMeter, agent = "general-purpose") {
  return createMiddleware({
    name: "SubagentMeterMiddleware",
    afterModel: (state) => {
      const last = state.messages.at(-1);
      if (last && AIMessage.isInstance(last) && !isModelCallLimitMessage(last)) {
        meter.subagentTurns.push(last);
        meter.turnsByAgent.set(agent, [...meter.turnsOf(agent), last]);
      }
      return undefined;
    },
    wrapToolCall: async (request, handler) => {
      const name = request.toolCall.name;
      meter.subagentToolCounts[name] = (meter.subagentToolCounts[name] ?? 0) + 1;
      return handler(request);
    },
  });
}
