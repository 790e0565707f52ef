import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { errorMessage } from "../../../errors.js";
import { attachPullRequests } from "../attach-pull-requests.js";
import type { LinearRef } from "../linear-ref.js";
import { postLinearComment } from "../post-linear-comment.js";
import { writableIssue } from "./team-scope.js";
import type { LinearToolDeps } from "./tool-deps.js";

export const LinearCommentInput = z.object({
  body: z.string().min(1).max(60_000).describe("Markdown comment for the person who asked"),
});

export const LinearLinkedCommentInput = z.object({
  issueId: z.string().min(1).max(200).describe("Issue id or identifier such as ENG-123, in the team linked to this repository"),
  body: z.string().min(1).max(60_000).describe("Markdown comment"),
});

async function postAndAttach(deps: LinearToolDeps, where: Pick<LinearRef, "issueId" | "parentId">, body: string): Promise<string> {
  await postLinearComment(deps.api, where, body);
  // The comment is out: a failed attachment is reported, never thrown (a retry would post it twice).
  try {
    const attached = await attachPullRequests(deps.api, where.issueId, body);
    return attached.length ? `Comment posted; ${attached.length} pull request link(s) attached to the issue.` : "Comment posted.";
  } catch (err) {
    deps.log.warn({ err, issueId: where.issueId }, "linear: attaching the pull request failed");
    return `Comment posted; attaching the pull request link to the issue failed: ${errorMessage(err)} Do not post the comment again.`;
  }
}

/** A Linear run's reply, threaded under the comment that asked. */
export function linearCommentTool(deps: LinearToolDeps & { ref: LinearRef }) {
  return tool(async ({ body }) => postAndAttach(deps, deps.ref, body), {
    name: "linear_comment",
    description: "Reply on the Linear issue this task came from, threaded under the comment that asked (your reply to the requester). GitHub pull request links in it are also attached to the issue.",
    schema: LinearCommentInput,
  });
}

/** A linked repository's run: a comment on a named issue of the linked team; any other team's is refused before a write. */
export function linearLinkedCommentTool(deps: LinearToolDeps) {
  return tool(
    async ({ issueId, body }) => {
      const target = await writableIssue(deps, issueId);
      if ("refused" in target) return target.refused;
      return postAndAttach(deps, { issueId: target.id }, body);
    },
    {
      name: "linear_comment",
      description: "Post a comment (Markdown) on a Linear issue of the team linked to this repository. GitHub pull request links in it are also attached to the issue.",
      schema: LinearLinkedCommentInput,
    },
  );
}
