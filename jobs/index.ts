import type { QueueName } from "../src/queue/names.js";
import type { JobData } from "../src/queue/schemas.js";
import type { JobContext, JobOutcome } from "../src/worker/job-context.js";
import { processAgent } from "./agent.js";
import { processAnalyze } from "./analyze.js";
import { processCiEvent } from "./ci-event.js";
import { processCiMonitor } from "./ci-monitor.js";
import { processCleanup } from "./cleanup.js";
import { processCommand } from "./command.js";
import { processReview } from "./review.js";
import { processSourceEvent } from "./source-event.js";

export type Processor<Q extends QueueName> = (data: JobData<Q>, ctx: JobContext) => Promise<JobOutcome>;

/** One processor per queue; the compiler checks none is missing. */
export const PROCESSORS: { [Q in QueueName]: Processor<Q> } = {
  agent: processAgent,
  review: processReview,
  "ci-event": processCiEvent,
  cleanup: processCleanup,
  command: processCommand,
  "ci-monitor": processCiMonitor,
  analyze: processAnalyze,
  "source-event": processSourceEvent,
};
