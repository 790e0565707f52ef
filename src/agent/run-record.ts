import { AIMessage, ToolMessage, type BaseMessage, type UsageMetadata } from "@langchain/core/messages";
import type { RunOutcome, RunRecord } from "../shared/run-record.js";
import { DEFAULT_REPLY_TOOLS } from "./side-effect-tools.js";
import { currentRunMessages } from "./current-run-messages.js";
import { CONFIRMING_COMPLETION_TOOL } from "./middleware/ensure-no-empty-message.js";
import { isModelCallLimitMessage } from "./middleware/model-call-limit.js";
import { PRICED_AS } from "./middleware/model-fallback.js";
import { canonicalModelId, modelRule } from "../config/model-table.js";

export interface RunUsage {
  modelCalls: number;
  /** All input tokens, cached ones included (how LangChain reports Anthropic usage). */
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
}

function usageOf(message: AIMessage): UsageMetadata | undefined {
  return (message as unknown as { usage_metadata?: UsageMetadata }).usage_metadata;
}

export function usageFromMessages(messages: readonly BaseMessage[]): RunUsage {
  const usage: RunUsage = { modelCalls: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0, cacheWriteTokens: 0 };
  for (const m of messages) {
    if (!AIMessage.isInstance(m) || isModelCallLimitMessage(m)) continue;
    usage.modelCalls += 1;
    const u = usageOf(m);
    if (!u) continue;
    usage.inputTokens += u.input_tokens;
    usage.outputTokens += u.output_tokens;
    usage.cachedTokens += u.input_token_details?.cache_read ?? 0;
    usage.cacheWriteTokens += u.input_token_details?.cache_creation ?? 0;
  }
  return usage;
}

/** USD for the usage at the model's list price; undefined when the table has no price for it. */
export function costUsd(modelId: string, usage: RunUsage): number | undefined {
  const price = modelRule(modelId)?.price;
  if (!price) return undefined;
  const uncached = Math.max(0, usage.inputTokens - usage.cachedTokens - usage.cacheWriteTokens);
  const dollars = (uncached * price.input + usage.cachedTokens * price.cacheRead + usage.cacheWriteTokens * price.cacheWrite + usage.outputTokens * price.output) / 1_000_000;
  return Math.round(dollars * 1e6) / 1e6;
}

/**
 * The model a turn was answered by, for pricing: the fallback's id when the fallback middleware
 * answered, else what the provider reported, else the run's model.
 */
export function pricedModelOf(message: AIMessage, runModelId: string): string {
  const meta = message.response_metadata as Record<string, unknown>;
  const reported = [meta[PRICED_AS], meta["model"], meta["model_name"], message.additional_kwargs["model"]].find((v): v is string => typeof v === "string" && v !== "");
  return reported && modelRule(canonicalModelId(reported))?.price ? canonicalModelId(reported) : runModelId;
}

/** USD for every turn at the rate of the model that answered it; undefined when none of them has a price. */
export function costOfTurns(messages: readonly BaseMessage[], runModelId: string): number | undefined {
  const byModel = new Map<string, BaseMessage[]>();
  for (const m of messages) {
    if (!AIMessage.isInstance(m)) continue;
    const id = pricedModelOf(m, runModelId);
    byModel.set(id, [...(byModel.get(id) ?? []), m]);
  }
  let total: number | undefined;
  for (const [id, turns] of byModel) {
    const cost = costUsd(id, usageFromMessages(turns));
    if (cost !== undefined) total = (total ?? 0) + cost;
  }
  return total === undefined ? undefined : Math.round(total * 1e6) / 1e6;
}

export function toolCounts(messages: readonly BaseMessage[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const m of messages) if (ToolMessage.isInstance(m) && m.name) counts[m.name] = (counts[m.name] ?? 0) + 1;
  return counts;
}

// Any web host: github.com or a GitHub Enterprise Server's (GHE_HOST); the URL comes from our own PR tool's result.
const PR_URL = /https:\/\/[\w.-]+(?::\d+)?\/[\w.-]+\/[\w.-]+\/pull\/\d+/;
export const PR_TOOLS = ["open_or_update_pull_request"] as const;

/** The PR URL a pull-request tool returned in this run; never one the model merely wrote. */
export function prUrlFrom(messages: readonly BaseMessage[], prTools: readonly string[] = PR_TOOLS): string | undefined {
  let url: string | undefined;
  for (const m of messages) {
    if (!ToolMessage.isInstance(m) || m.status === "error" || !m.name || !prTools.includes(m.name)) continue;
    url = PR_URL.exec(m.text)?.[0] ?? url;
  }
  return url;
}

export function inferOutcome(messages: readonly BaseMessage[], prUrl: string | undefined, replyTools: readonly string[] = DEFAULT_REPLY_TOOLS): RunOutcome {
  const last = messages.at(-1);
  if (last && AIMessage.isInstance(last) && last.response_metadata["budget_exceeded"] === true) return "budget_exceeded";
  if (isModelCallLimitMessage(last)) return "step_limit";
  if (last && AIMessage.isInstance(last) && last.text.startsWith("Stopping: the sandbox failed")) return "sandbox_failed";
  if (prUrl) return "pr_opened";
  // Replied or confirmed is a finished run (a question needs no PR).
  const finished = [CONFIRMING_COMPLETION_TOOL, ...replyTools] as readonly string[];
  if (messages.some((m) => ToolMessage.isInstance(m) && m.name !== undefined && finished.includes(m.name) && m.status !== "error")) return "completed";
  return "incomplete";
}

export interface BuildRunRecordInput {
  threadId: string;
  trigger: string;
  settings: { modelId: string; effort: string; provider: string };
  /** The thread's messages after the run; only the current run's part is counted. */
  messages: readonly BaseMessage[];
  startedAt: Date;
  finishedAt: Date;
  /** A thrown error ends the run as `failed` whatever the messages say. */
  error?: unknown;
  /** Tools whose success means the run answered (default: GitHub's reply; a source run adds its sources'). */
  replyTools?: readonly string[];
  /** The `task` subagents' turns and tool calls: part of the run's usage, cost and tool counts. */
  subagent?: { subagentTurns: readonly AIMessage[]; subagentToolCounts: Readonly<Record<string, number>> };
}

export function buildRunRecord(input: BuildRunRecordInput): RunRecord {
  const run = currentRunMessages(input.messages);
  const turns = [...run, ...(input.subagent?.subagentTurns ?? [])];
  const usage = usageFromMessages(turns);
  const prUrl = prUrlFrom(run);
  const cost = costOfTurns(turns, input.settings.modelId);
  const tools = toolCounts(run);
  for (const [name, n] of Object.entries(input.subagent?.subagentToolCounts ?? {})) tools[name] = (tools[name] ?? 0) + n;
  const record: RunRecord = {
    threadId: input.threadId,
    trigger: input.trigger,
    modelId: input.settings.modelId,
    effort: input.settings.effort,
    replayed: input.settings.provider === "replay",
    startedAt: input.startedAt.toISOString(),
    durationMs: Math.max(0, input.finishedAt.getTime() - input.startedAt.getTime()),
    ...usage,
    toolCounts: tools,
    outcome: input.error !== undefined ? "failed" : inferOutcome(run, prUrl, input.replyTools),
  };
  if (cost !== undefined) record.costUsd = cost;
  if (prUrl) record.prUrl = prUrl;
  if (input.error !== undefined) record.error = input.error instanceof Error ? input.error.message : String(input.error);
  return record;
}

function tokens(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m ${s % 60}s` : `${Math.floor(m / 60)}h ${m % 60}m`;
}

/** One line for the final reply, e.g. `claude-sonnet-4-6 · 12 calls · 48.2k in (31.0k cached) / 3.1k out · $0.2140 · 4m 12s`. */
export function formatRunSummary(record: RunRecord): string {
  const model = record.modelId.slice(record.modelId.indexOf(":") + 1);
  const parts = [
    record.replayed ? "replayed run (no model was called)" : model,
    `${record.modelCalls} ${record.modelCalls === 1 ? "call" : "calls"}`,
    `${tokens(record.inputTokens)} in${record.cachedTokens > 0 ? ` (${tokens(record.cachedTokens)} cached)` : ""} / ${tokens(record.outputTokens)} out`,
    record.costUsd !== undefined ? `$${record.costUsd.toFixed(record.costUsd < 1 ? 4 : 2)}` : "cost n/a",
    duration(record.durationMs),
  ];
  return parts.join(" · ");
}
