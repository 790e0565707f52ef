import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { jobId } from "../../queue/job-ids.js";
import type { GitHubRunContext } from "./run-context.js";

/** A delayed agent job on the same thread: "check back on CI in 20 minutes". */
export function scheduleWakeupTool(ctx: GitHubRunContext, isPullRequest: boolean) {
  let count = 0;
  return tool(
    async ({ delay_minutes, note }) => {
      count += 1;
      const id = jobId("wakeup", ctx.threadId, ctx.runId, count);
      await ctx.queues.add(
        "agent",
        {
          installationId: ctx.installationId,
          owner: ctx.owner,
          repo: ctx.repo,
          ...(ctx.source ? { source: ctx.source.origin } : {}),
          ...(ctx.target ? { number: ctx.target.number } : {}),
          isPullRequest,
          threadId: ctx.threadId,
          trigger: "wakeup",
          requester: ctx.requester,
          text: note,
          // The original grant, never more: the note is the model's own text.
          verdictAuthorized: ctx.verdictAuthorized,
          deliveryId: id,
        },
        id,
        { delay: delay_minutes * 60_000, via: ctx.provenance.via, principal: ctx.provenance.principal },
      );
      return `Scheduled to resume this thread in ${delay_minutes} minutes.`;
    },
    {
      name: "schedule_thread_wakeup",
      description: "Resume this thread later (e.g. to check CI). The note is what you will be told on waking.",
      schema: z.object({
        delay_minutes: z
          .number()
          .int()
          .min(1)
          .max(24 * 60),
        note: z.string().min(1).max(2_000),
      }),
    },
  );
}
