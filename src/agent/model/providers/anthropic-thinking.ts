import { THINKING_BUDGET, type Effort, type ModelRule } from "../../../config/model-table.js";

/**
 * Claude's thinking parameters for an effort, in the Messages API's own shape (Anthropic's API, and
 * Bedrock's and Vertex's Claude, which take the same body): adaptive thinking with `output_config.effort`,
 * or extended thinking with a token budget (max_tokens raised above it). Empty for effort none or a
 * model without thinking.
 */
export interface ClaudeThinking {
  thinking?: { type: "adaptive" } | { type: "enabled"; budget_tokens: number };
  output_config?: { effort: Exclude<Effort, "none"> };
  maxTokens: number;
}

export function claudeThinking(rule: ModelRule, effort: Effort): ClaudeThinking {
  if (effort === "none" || rule.mode === "none") return { maxTokens: rule.maxTokens };
  if (rule.mode === "adaptive") return { thinking: { type: "adaptive" }, output_config: { effort }, maxTokens: rule.maxTokens };
  if (rule.mode === "budget") {
    const budget = THINKING_BUDGET[effort];
    return { thinking: { type: "enabled", budget_tokens: budget }, maxTokens: Math.max(rule.maxTokens, budget + 4_096) };
  }
  return { maxTokens: rule.maxTokens };
}
