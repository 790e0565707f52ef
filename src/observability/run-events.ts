import type { Redis } from "ioredis";
import { z } from "zod";
import { toolLabels } from "./metric-labels.js";
import { approvalLatency, approvalsRequested, costUsdTotal, mcpServerOf, runsTotal, tokensTotal, toolDuration } from "./metrics.js";

/** The stream keeps about this many events (XADD MAXLEN ~): a window for dashboards, not an archive. */
export const EVENTS_MAXLEN = 10_000;

export const RunEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("run.started"), runId: z.string(), threadId: z.string(), repo: z.string(), trigger: z.string(), model: z.string() }),
  z.object({
    type: z.literal("tool.executed"),
    runId: z.string(),
    name: z.string(),
    server: z.string(),
    durationMs: z.number().min(0),
    resultChars: z.number().int().min(0),
    status: z.enum(["success", "error"]),
  }),
  z.object({ type: z.literal("approval.requested"), runId: z.string(), approvalId: z.string(), threadId: z.string(), tools: z.array(z.string()) }),
  z.object({
    type: z.literal("approval.resolved"),
    approvalId: z.string(),
    threadId: z.string(),
    decision: z.enum(["approve", "reject"]),
    how: z.enum(["person", "timeout"]),
    by: z.string().nullable(),
    latencyMs: z.number().int().min(0),
  }),
  z.object({
    type: z.literal("run.completed"),
    runId: z.string(),
    threadId: z.string(),
    trigger: z.string(),
    model: z.string(),
    status: z.string(),
    inputTokens: z.number().int().min(0),
    outputTokens: z.number().int().min(0),
    cachedTokens: z.number().int().min(0),
    costUsd: z.number().min(0).nullable(),
    durationMs: z.number().int().min(0),
    toolCounts: z.record(z.string(), z.number().int()),
    subagents: z.number().int().min(0),
    /** Seed 004's completion fields. */
    provider: z.string(),
    mode: z.string(),
    messageCount: z.number().int().min(0),
    title: z.string(),
    firstUserMessage: z.string(),
    subagentIds: z.array(z.string()),
    branches: z.object({ head: z.string(), base: z.string() }),
  }),
]);
export type RunEvent = z.infer<typeof RunEvent>;

export const runEventsKey = (prefix: string) => `${prefix}:events`;

/** The MCP servers this process has labelled by name (`toolLabels` keeps it bounded). */
const mcpServersSeen = new Set<string>();

function observe(e: RunEvent): void {
  switch (e.type) {
    case "tool.executed":
      toolDuration.observe({ ...toolLabels(e.name, e.server, mcpServersSeen), status: e.status }, e.durationMs / 1000);
      return;
    case "approval.requested":
      approvalsRequested.inc();
      return;
    case "approval.resolved":
      approvalLatency.observe({ decision: e.decision, how: e.how }, e.latencyMs / 1000);
      return;
    case "run.completed":
      runsTotal.inc({ outcome: e.status, trigger: e.trigger });
      tokensTotal.inc({ model: e.model, kind: "input" }, e.inputTokens);
      tokensTotal.inc({ model: e.model, kind: "output" }, e.outputTokens);
      tokensTotal.inc({ model: e.model, kind: "cached" }, e.cachedTokens);
      if (e.costUsd !== null) costUsdTotal.inc({ model: e.model }, e.costUsd);
      return;
    case "run.started":
      return;
  }
}

/**
 * Run events: counted in this process's Prometheus metrics and appended to a capped Redis stream
 * (`<prefix>:events`, field `event` = the JSON). Losing an event never fails a run: a Redis error is
 * handed to `onError`.
 */
export class RunEvents {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  async emit(event: RunEvent): Promise<void> {
    const e = RunEvent.parse(event);
    observe(e);
    try {
      await this.redis.xadd(runEventsKey(this.prefix), "MAXLEN", "~", String(EVENTS_MAXLEN), "*", "type", e.type, "event", JSON.stringify({ ...e, at: new Date().toISOString() }));
    } catch (err) {
      this.onError(err);
    }
  }

  /** The stream's newest events first (operators, tests). */
  async recent(count = 100): Promise<Array<RunEvent & { at: string }>> {
    const rows = await this.redis.xrevrange(runEventsKey(this.prefix), "+", "-", "COUNT", count);
    return rows.map(([, fields]) => JSON.parse(fields[fields.indexOf("event") + 1] ?? "{}") as RunEvent & { at: string });
  }
}

export function toolExecutedEvent(runId: string, name: string, durationMs: number, result: unknown): RunEvent {
  const content = (result as { content?: unknown } | undefined)?.content ?? result;
  const text = typeof content === "string" ? content : JSON.stringify(content ?? "");
  const status = (result as { status?: unknown } | undefined)?.status === "error" ? "error" : "success";
  return { type: "tool.executed", runId, name, server: mcpServerOf(name), durationMs: Math.max(0, durationMs), resultChars: text.length, status };
}
