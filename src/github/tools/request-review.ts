import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { jobId } from "../../queue/job-ids.js";
import { threadId } from "../../shared/thread-id.js";
import type { GitHubRunContext } from "./run-context.js";

/**
 * Asks the reviewer to review a PR. A verdict can only be passed on when the person who started this
 * run asked for one explicitly (`verdictAuthorized`); the model cannot grant it to itself.
 */
export function requestReviewTool(ctx: GitHubRunContext, verdictAuthorized: boolean) {
  return tool(
    async ({ pr_number, instructions, verdict }) => {
      const number = pr_number ?? ctx.state.prNumber;
      if (!number) return "No pull request to review yet: open one first or pass pr_number.";
      const reviewer = threadId({ kind: "reviewer", owner: ctx.owner, repo: ctx.repo, number });
      const verdictRequested = verdict && verdictAuthorized;
      await ctx.queues.add(
        "review",
        {
          installationId: ctx.installationId,
          owner: ctx.owner,
          repo: ctx.repo,
          number,
          threadId: reviewer,
          trigger: "mention",
          requester: ctx.requester,
          verdictRequested,
          instructions,
          deliveryId: `${ctx.runId}-review-${number}`,
        },
        jobId("review", ctx.runId, number),
        { via: ctx.provenance.via, principal: ctx.provenance.principal },
      );
      return `Review requested on #${number}${verdict && !verdictRequested ? " (comments only: the requester did not ask for a verdict)" : ""}.`;
    },
    {
      name: "request_pr_review",
      description: "Ask the reviewer to review a pull request, forwarding the requester's instructions verbatim.",
      schema: z.object({
        pr_number: z.number().int().positive().optional(),
        instructions: z.string().default(""),
        verdict: z.boolean().default(false).describe("true only if the requester explicitly asked for an approve/request-changes verdict"),
      }),
    },
  );
}
