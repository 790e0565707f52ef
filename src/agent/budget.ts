import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { costOfTurns, pricedModelOf, usageFromMessages } from "./run-record.js";
import { modelRule } from "../config/model-table.js";

/** Marks a turn that was never a model call: it stopped the run (or a subagent) in its place. */
export const BUDGET_EXCEEDED = "budget_exceeded";

export function isBudgetStop(message: BaseMessage | undefined): boolean {
  return message !== undefined && AIMessage.isInstance(message) && message.response_metadata[BUDGET_EXCEEDED] === true;
}

/** A rough token count of what the next call sends (≈ 4 characters a token): enough to stop before a budget, not to bill. */
export function estimateInputTokens(messages: readonly BaseMessage[], systemPrompt = ""): number {
  let chars = systemPrompt.length;
  for (const m of messages) {
    chars += typeof m.content === "string" ? m.content.length : JSON.stringify(m.content).length;
    const calls = (m as AIMessage).tool_calls;
    if (calls?.length) chars += JSON.stringify(calls).length;
  }
  return Math.ceil(chars / 4);
}

/** Tokens the turns used so far (input, cached included, and output): what a token cap counts, priced or not. */
export function spentTokens(turns: readonly BaseMessage[]): number {
  const u = usageFromMessages(turns);
  return u.inputTokens + u.outputTokens;
}

/** USD the turns cost so far, at the rate of the model that answered each (0 when none has a price). */
export function spentUsd(turns: readonly BaseMessage[], modelId: string): number {
  return costOfTurns(turns, modelId) ?? 0;
}

/**
 * USD of the next call's input at the model's (uncached) input rate; a model without a price (a
 * replay, a self-hosted one) is priced as the last priced turn's model, else as free.
 */
export function nextCallUsd(inputTokens: number, modelId: string, turns: readonly BaseMessage[]): number {
  let price = modelRule(modelId)?.price;
  for (let i = turns.length - 1; !price && i >= 0; i -= 1) {
    const m = turns[i]!;
    if (AIMessage.isInstance(m)) price = modelRule(pricedModelOf(m, modelId))?.price;
  }
  return price ? (inputTokens * price.input) / 1_000_000 : 0;
}

export const usd = (n: number) => `$${n.toFixed(n < 1 ? 4 : 2)}`;

/** The turn that ends a run (or a subagent) in place of a model call; the run's normal exit path follows. */
export function budgetStopMessage(text: string, spent: number, budget: number, unit: "usd" | "tokens" = "usd"): AIMessage {
  return new AIMessage({ content: text, response_metadata: { model_call_limit: true, [BUDGET_EXCEEDED]: true, [`spent_${unit}`]: spent, [`budget_${unit}`]: budget } });
}

/** A run whose model has no price (a $0 self-hosted one, an unknown deployment) is capped at this many tokens when no token budget is set. */
export const UNPRICED_TOKEN_CAP = 20_000_000;

/**
 * A run's budget from the deployment's and the repository's caps (the lower of each): USD and tokens. A
 * model without a price (self-hosted at $0, an unknown deployment) is never stopped by a USD cap, so it
 * gets UNPRICED_TOKEN_CAP when no token cap is set. Empty: no budget.
 */
export function runBudget(modelId: string, caps: { usd: Array<number | undefined>; tokens: Array<number | undefined> }): { budgetUsd?: number; budgetTokens?: number; budgetModelId?: string } {
  const usdCaps = caps.usd.filter((b): b is number => b !== undefined);
  const tokenCaps = caps.tokens.filter((b): b is number => b !== undefined);
  if (tokenCaps.length === 0 && modelRule(modelId)?.price === undefined && modelRule(modelId)?.provider !== "replay") tokenCaps.push(UNPRICED_TOKEN_CAP);
  const budget: { budgetUsd?: number; budgetTokens?: number; budgetModelId?: string } = {};
  if (usdCaps.length > 0) budget.budgetUsd = Math.min(...usdCaps);
  if (tokenCaps.length > 0) budget.budgetTokens = Math.min(...tokenCaps);
  if (usdCaps.length > 0 || tokenCaps.length > 0) budget.budgetModelId = modelId;
  return budget;
}
