import type { AgentRuntime } from "../threads/agent-runtime.js";
import type { SourceRegistry } from "../sources/registry.js";
import type { JobServices, JobContext as ThreadJobContext } from "../threads/job-context.js";

export type { JobOutcome } from "../threads/job-context.js";

/** The worker's services: the job services the rooms below take, plus what only runs and sources use. */
export interface WorkerServices extends JobServices {
  /** Slack, Linear, …: the worker-side clients answer there. */
  sources: SourceRegistry;
  runtime: AgentRuntime;
}

/** What a processor in `jobs/` gets: every service and this execution of the job. */
export interface JobContext extends ThreadJobContext, WorkerServices {}
