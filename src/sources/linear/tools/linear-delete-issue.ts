import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { LinearApiError } from "../linear-api.js";
import { outsideTeam } from "./team-scope.js";
import type { LinearToolDeps } from "./tool-deps.js";

export const LinearDeleteIssueInput = z.object({ issueId: z.string().min(1).max(200).describe("Issue id or identifier such as ENG-123, of an issue you created") });

const WHO_CREATED = `query OpenSweIssueCreator($id: String!) {
  viewer { id }
  issue(id: $id) { id identifier creator { id } team { id } }
}`;

const Creator = z.object({
  viewer: z.object({ id: z.string() }),
  issue: z.object({ id: z.string(), identifier: z.string(), creator: z.object({ id: z.string() }).nullish(), team: z.object({ id: z.string() }) }).nullish(),
});

const MUTATION = `mutation OpenSweIssueDelete($id: String!) {
  issueDelete(id: $id) { success }
}`;

const Answer = z.object({ issueDelete: z.object({ success: z.boolean() }) });

/**
 * Moves an issue the app itself created to Linear's trash (restorable there for 30 days); never a
 * permanent delete, never someone else's issue — text the agent read (a repository, a comment) must
 * not be able to make it delete people's work.
 */
export function linearDeleteIssueTool(deps: LinearToolDeps) {
  return tool(
    async ({ issueId }) => {
      const { viewer, issue } = await deps.api.request(WHO_CREATED, { id: issueId }, Creator);
      if (!issue) return `No Linear issue ${issueId}.`;
      const outside = outsideTeam(deps.team, issue.identifier, issue.team.id);
      if (outside) return outside;
      if (issue.creator?.id !== viewer.id) return `Refused: ${issue.identifier} was not created by Open SWE; only issues this app created can be deleted. Ask the person to delete it.`;
      const { issueDelete } = await deps.api.request(MUTATION, { id: issue.id }, Answer);
      if (!issueDelete.success) throw new LinearApiError("linear_upstream", "Linear did not delete the issue (success: false); an upstream error.");
      return `Issue ${issue.identifier} moved to Linear's trash.`;
    },
    {
      name: "linear_delete_issue",
      description: "Delete a Linear issue that you (Open SWE) created; it goes to the trash, restorable for 30 days. Name the issue explicitly.",
      schema: LinearDeleteIssueInput,
    },
  );
}
