import type { AgentJob } from "../src/queue/schemas.js";
import { runAgent } from "../src/runs/run-agent.js";
import { authorizeRequester } from "../src/worker/authorize.js";
import type { JobContext, JobOutcome } from "../src/worker/job-context.js";

/**
 * The agent queue: the requester must have write access; a request on a thread whose run is still going
 * becomes a follow-up that run reads before its next model call, instead of a second run.
 */
export async function processAgent(data: AgentJob, ctx: JobContext): Promise<JobOutcome> {
  const octokit = await ctx.github.installation(data.installationId);
  const target = { owner: data.owner, repo: data.repo, number: data.number, comment: data.comment, login: data.requester.login };
  if (!(await authorizeRequester(ctx, octokit, target))) return { outcome: "refused" };

  const acquired = (await ctx.locks.acquire(data.threadId, ctx.jobId)) || (await ctx.locks.holder(data.threadId)) === ctx.jobId;
  if (!acquired) {
    const { length, dropped } = await ctx.followUps.push(data.threadId, {
      text: data.text,
      author: data.requester.login,
      source: "github",
      at: Date.now(),
    });
    ctx.log.info({ threadId: data.threadId, length, dropped }, "run active: queued as follow-up");
    return { outcome: "follow_up", queued: length, dropped };
  }
  const renew = setInterval(() => void ctx.locks.extend(data.threadId, ctx.jobId).catch(() => undefined), (ctx.config.env.RUN_LOCK_SECONDS * 1000) / 3);
  try {
    const record = await runAgent(data, ctx, octokit, ctx.runtime);
    return { outcome: record.outcome, prUrl: record.prUrl, costUsd: record.costUsd, durationMs: record.durationMs };
  } finally {
    clearInterval(renew);
    await ctx.locks.release(data.threadId, ctx.jobId);
  }
}
