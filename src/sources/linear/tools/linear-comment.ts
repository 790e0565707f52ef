import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { errorMessage } from "../../../errors.js";
import { attachPullRequests } from "../attach-pull-requests.js";
import { postLinearComment } from "../post-linear-comment.js";
import type { LinearToolDeps } from "./tool-deps.js";

export const LinearCommentInput = z.object({
  body: z.string().min(1).max(60_000).describe("Markdown comment for the person who asked"),
});

export function linearCommentTool(deps: LinearToolDeps) {
  return tool(
    async ({ body }) => {
      await postLinearComment(deps.api, deps.ref, body);
      // The comment is out: a failed attachment is reported, never thrown (a retry would post it twice).
      try {
        const attached = await attachPullRequests(deps.api, deps.ref.issueId, body);
        return attached.length ? `Comment posted; ${attached.length} pull request link(s) attached to the issue.` : "Comment posted.";
      } catch (err) {
        deps.log.warn({ err, issueId: deps.ref.issueId }, "linear: attaching the pull request failed");
        return `Comment posted; attaching the pull request link to the issue failed: ${errorMessage(err)} Do not post the comment again.`;
      }
    },
    {
      name: "linear_comment",
      description: "Reply on the Linear issue this task came from, threaded under the comment that asked (your reply to the requester). GitHub pull request links in it are also attached to the issue.",
      schema: LinearCommentInput,
    },
  );
}
