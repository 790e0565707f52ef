import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ISSUE_ID_DESCRIPTION, issueOrConversation, NAME_THE_ISSUE, toolJson, type LinearToolDeps } from "./tool-deps.js";

export const LinearGetIssueCommentsInput = z.object({
  issueId: z.string().min(1).max(200).optional().describe(ISSUE_ID_DESCRIPTION),
  limit: z.number().int().min(1).max(100).default(50).describe("How many comments, oldest first (1-100)"),
});

const QUERY = `query OpenSweGetIssueComments($id: String!, $first: Int!) {
  issue(id: $id) {
    identifier
    comments(first: $first, orderBy: createdAt) { nodes { id body createdAt parent { id } user { id name } botActor { name } } }
  }
}`;

const Answer = z.object({
  issue: z.object({ identifier: z.string(), comments: z.object({ nodes: z.array(z.object({ createdAt: z.string() }).passthrough()) }) }).nullish(),
});

export function linearGetIssueCommentsTool(deps: LinearToolDeps) {
  return tool(
    async ({ issueId, limit }) => {
      const id = issueOrConversation(deps, issueId);
      if (!id) return NAME_THE_ISSUE;
      const { issue } = await deps.api.request(QUERY, { id, first: limit }, Answer);
      if (!issue) return `No Linear issue ${id}.`;
      const comments = [...issue.comments.nodes].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      return toolJson({ issue: issue.identifier, comments });
    },
    { name: "linear_get_issue_comments", description: "Read the comments on a Linear issue, oldest first.", schema: LinearGetIssueCommentsInput },
  );
}
