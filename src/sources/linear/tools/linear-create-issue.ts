import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { LinearApiError } from "../linear-api.js";
import { toolJson, type LinearToolDeps } from "./tool-deps.js";

export const LinearCreateIssueInput = z.object({
  title: z.string().min(1).max(500),
  description: z.string().max(100_000).optional().describe("Markdown"),
  teamId: z.string().min(1).optional().describe("Team id; omit for the team of the issue this conversation is on, or the team linked to this repository (linear_list_teams lists them)"),
  priority: z.number().int().min(0).max(4).optional().describe("0 none, 1 urgent, 2 high, 3 medium, 4 low"),
  assigneeId: z.string().min(1).optional(),
  stateId: z.string().min(1).optional(),
  labelIds: z.array(z.string().min(1)).max(50).optional(),
  projectId: z.string().min(1).optional(),
  parentId: z.string().min(1).optional().describe("Make it a sub-issue of this issue id"),
});

const MUTATION = `mutation OpenSweIssueCreate($input: IssueCreateInput!) {
  issueCreate(input: $input) { success issue { id identifier title url } }
}`;

const Answer = z.object({ issueCreate: z.object({ success: z.boolean(), issue: z.record(z.string(), z.unknown()).nullish() }) });

export function linearCreateIssueTool(deps: LinearToolDeps) {
  return tool(
    async ({ teamId, ...fields }) => {
      if (deps.team !== undefined && teamId !== undefined && teamId !== deps.team)
        return `Refused: team ${teamId} is not ${deps.team}, the team linked to this repository; omit teamId to create the issue there.`;
      const team = teamId ?? deps.team ?? deps.ref?.teamId;
      if (!team) return "No team: this conversation's issue has no team on record. Pass teamId (linear_list_teams lists them).";
      const input = Object.fromEntries(Object.entries({ ...fields, teamId: team }).filter(([, v]) => v !== undefined));
      const { issueCreate } = await deps.api.request(MUTATION, { input }, Answer);
      if (!issueCreate.success || !issueCreate.issue) throw new LinearApiError("linear_upstream", "Linear did not create the issue (success: false); an upstream error.");
      return toolJson(issueCreate.issue);
    },
    { name: "linear_create_issue", description: "Create a Linear issue (in this conversation's team, or the team linked to this repository, unless teamId is given).", schema: LinearCreateIssueInput },
  );
}
