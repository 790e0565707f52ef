import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { LinearApiError } from "../linear-api.js";
import { writableIssue } from "./team-scope.js";
import { ISSUE_ID_DESCRIPTION, issueOrConversation, NAME_THE_ISSUE, toolJson, type LinearToolDeps } from "./tool-deps.js";

export const LinearUpdateIssueInput = z
  .object({
    issueId: z.string().min(1).max(200).optional().describe(ISSUE_ID_DESCRIPTION),
    title: z.string().min(1).max(500).optional(),
    description: z.string().max(100_000).optional().describe("Markdown; replaces the description"),
    priority: z.number().int().min(0).max(4).optional().describe("0 none, 1 urgent, 2 high, 3 medium, 4 low"),
    assigneeId: z.string().min(1).nullable().optional().describe("null unassigns"),
    stateId: z.string().min(1).optional(),
    labelIds: z.array(z.string().min(1)).max(50).optional().describe("Replaces the labels"),
  })
  .refine((v) => Object.entries(v).some(([k, x]) => k !== "issueId" && x !== undefined), "give at least one field to change");

const MUTATION = `mutation OpenSweIssueUpdate($id: String!, $input: IssueUpdateInput!) {
  issueUpdate(id: $id, input: $input) { success issue { id identifier title url } }
}`;

const Answer = z.object({ issueUpdate: z.object({ success: z.boolean(), issue: z.record(z.string(), z.unknown()).nullish() }) });

export function linearUpdateIssueTool(deps: LinearToolDeps) {
  return tool(
    async ({ issueId, ...fields }) => {
      const named = issueOrConversation(deps, issueId);
      if (!named) return NAME_THE_ISSUE;
      const target = await writableIssue(deps, named);
      if ("refused" in target) return target.refused;
      const input = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
      const { issueUpdate } = await deps.api.request(MUTATION, { id: target.id, input }, Answer);
      if (!issueUpdate.success) throw new LinearApiError("linear_upstream", "Linear did not update the issue (success: false); an upstream error.");
      return toolJson(issueUpdate.issue ?? { success: true });
    },
    { name: "linear_update_issue", description: "Change a Linear issue's title, description, priority, assignee, state or labels.", schema: LinearUpdateIssueInput },
  );
}
