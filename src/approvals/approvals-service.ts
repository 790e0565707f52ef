import type { JobContext } from "../threads/job-context.js";
import type { Approvals, JobApprovals } from "../threads/approvals.js";
import { approvalStore, decideAndAnswer, decideApproval, type DecisionDeps } from "./handle-approval.js";

/** The approvals the dashboard reads and decides (built by the web role over its Redis and queues). */
export function approvalsService(deps: DecisionDeps): Approvals {
  const store = approvalStore(deps);
  return {
    get: (id) => store.get(id),
    listPending: () => store.listPending(),
    pendingFor: (threadId) => store.pendingFor(threadId),
    decide: (req) => decideApproval(deps, req),
  };
}

/** The approvals one job may decide, answering the person where they decided. */
export function jobApprovals(ctx: JobContext): JobApprovals {
  return { ...approvalsService(ctx), decideAndAnswer: (octokit, req) => decideAndAnswer(ctx, octokit, req) };
}
