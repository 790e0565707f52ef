import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ISSUE_ID_DESCRIPTION, issueOrConversation, NAME_THE_ISSUE, toolJson, type LinearToolDeps } from "./tool-deps.js";

export const LinearGetIssueInput = z.object({ issueId: z.string().min(1).max(200).optional().describe(ISSUE_ID_DESCRIPTION) });

const QUERY = `query OpenSweGetIssue($id: String!) {
  issue(id: $id) {
    id identifier title description url priority priorityLabel createdAt updatedAt
    state { id name type } assignee { id name } team { id key name } project { id name }
    labels { nodes { id name } } parent { id identifier }
  }
}`;

const Answer = z.object({ issue: z.record(z.string(), z.unknown()).nullish() });

export function linearGetIssueTool(deps: LinearToolDeps) {
  return tool(
    async ({ issueId }) => {
      const id = issueOrConversation(deps, issueId);
      if (!id) return NAME_THE_ISSUE;
      const { issue } = await deps.api.request(QUERY, { id }, Answer);
      return issue ? toolJson(issue) : `No Linear issue ${id}.`;
    },
    { name: "linear_get_issue", description: "Read a Linear issue: title, description, state, assignee, team, labels.", schema: LinearGetIssueInput },
  );
}
