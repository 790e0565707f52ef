import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/** One registry per process: each role's `/metrics` shows what that process did plus the shared queue depths. */
export const registry = new Registry();
// Unprefixed, as the standard Node.js dashboards query them (`process_cpu_seconds_total`, `nodejs_heap_size_used_bytes`).
collectDefaultMetrics({ register: registry });

/** `open_swe_build_info{version,commit,node} 1`: set once at start (`startProcess`). */
export const buildInfo = new Gauge({
  name: "open_swe_build_info",
  help: "The running build: version, commit (empty when unknown), Node version",
  labelNames: ["version", "commit", "node"],
  registers: [registry],
});
export const webhooksTotal = new Counter({
  name: "open_swe_webhooks_total",
  help: "Requests to the GitHub webhook path, by event (X-GitHub-Event, or other) and result (accepted, refused, failed)",
  labelNames: ["event", "result"],
  registers: [registry],
});
export const runsTotal = new Counter({ name: "open_swe_runs_total", help: "Agent runs finished, by outcome", labelNames: ["outcome", "trigger"], registers: [registry] });
export const tokensTotal = new Counter({
  name: "open_swe_tokens_total",
  help: "Model tokens of finished runs, by model and kind (input includes cached)",
  labelNames: ["model", "kind"],
  registers: [registry],
});
export const costUsdTotal = new Counter({ name: "open_swe_cost_usd_total", help: "Model cost of finished runs in USD, by model", labelNames: ["model"], registers: [registry] });
export const toolDuration = new Histogram({
  name: "open_swe_tool_duration_seconds",
  help: "Tool call durations, by tool (an MCP server's tools as mcp__<server>__*) and MCP server (empty for our own tools; past 20 servers: other)",
  labelNames: ["tool", "server", "status"],
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 600],
  registers: [registry],
});
export const approvalLatency = new Histogram({
  name: "open_swe_approval_latency_seconds",
  help: "From an approval request to its decision, by decision and who decided (person or timeout)",
  labelNames: ["decision", "how"],
  buckets: [10, 30, 60, 300, 900, 1800, 3600, 7200, 86400],
  registers: [registry],
});
export const approvalsRequested = new Counter({ name: "open_swe_approvals_requested_total", help: "Approval requests posted", registers: [registry] });
export const queueJobs = new Gauge({ name: "open_swe_queue_jobs", help: "Jobs per queue and state", labelNames: ["queue", "state"], registers: [registry] });
export const jobDuration = new Histogram({
  name: "open_swe_job_duration_seconds",
  help: "Job processing time in this process, by queue and result",
  labelNames: ["queue", "result"],
  buckets: [0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 1800, 3600],
  registers: [registry],
});

/** `mcp__<server>__<tool>` → the server's name; our own and deepagents' tools have none. */
export function mcpServerOf(tool: string): string {
  const m = /^mcp__(.+?)__/.exec(tool);
  return m ? m[1]! : "";
}
export const runYieldSeconds = new Counter({
  name: "open_swe_run_yield_seconds_total",
  help: "Seconds runs under way waited at a model or tool call for runs starting on the same worker (START_PRIORITY_MS)",
  registers: [registry],
});
export const runStartsTotal = new Counter({
  name: "open_swe_run_starts_total",
  help: "Runs that counted as starting on this worker (START_PRIORITY_MS): each after its requester's rights were checked",
  registers: [registry],
});
export const runSetupSeconds = new Histogram({
  name: "open_swe_run_setup_seconds",
  help: "A run's set-up before its first model call, by phase (claim, config, model, workspace, tools, inputs, agent)",
  labelNames: ["phase"],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});
export const webhookBodiesRefused = new Counter({
  name: "open_swe_webhook_bodies_refused_total",
  help: "GitHub webhook bodies refused before their signature was checked, by reason (too_large, address_busy, server_busy, unreadable)",
  labelNames: ["reason"],
  registers: [registry],
});
