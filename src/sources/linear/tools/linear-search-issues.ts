import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { toolJson, type LinearToolDeps } from "./tool-deps.js";

export const LinearSearchIssuesInput = z.object({
  query: z.string().min(1).max(500).describe("Words to search for in titles and descriptions"),
  teamId: z.string().min(1).optional().describe("Only this team's issues"),
  includeComments: z.boolean().default(false).describe("Also search comment text"),
  includeArchived: z.boolean().default(false),
  limit: z.number().int().min(1).max(50).default(10),
});

const QUERY = `query OpenSweSearchIssues($term: String!, $first: Int!, $teamId: String, $includeComments: Boolean, $includeArchived: Boolean) {
  searchIssues(term: $term, first: $first, teamId: $teamId, includeComments: $includeComments, includeArchived: $includeArchived) {
    totalCount
    nodes { id identifier title url priorityLabel state { name } assignee { name } team { key } }
  }
}`;

const Answer = z.object({ searchIssues: z.object({ totalCount: z.number(), nodes: z.array(z.record(z.string(), z.unknown())) }) });

export function linearSearchIssuesTool(deps: LinearToolDeps) {
  return tool(
    async ({ query, teamId, includeComments, includeArchived, limit }) => {
      const variables = { term: query, first: limit, includeComments, includeArchived, ...(teamId ? { teamId } : {}) };
      const { searchIssues } = await deps.api.request(QUERY, variables, Answer);
      return toolJson({ total: searchIssues.totalCount, issues: searchIssues.nodes });
    },
    { name: "linear_search_issues", description: "Search Linear issues by text.", schema: LinearSearchIssuesInput },
  );
}
