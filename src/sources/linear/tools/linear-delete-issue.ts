import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { LinearApiError } from "../linear-api.js";
import type { LinearToolDeps } from "./tool-deps.js";

export const LinearDeleteIssueInput = z.object({ issueId: z.string().min(1).max(200).describe("Issue id or identifier such as ENG-123") });

const MUTATION = `mutation OpenSweIssueDelete($id: String!) {
  issueDelete(id: $id) { success }
}`;

const Answer = z.object({ issueDelete: z.object({ success: z.boolean() }) });

/** Moves the issue to Linear's trash (restorable there for 30 days); never a permanent delete. */
export function linearDeleteIssueTool(deps: LinearToolDeps) {
  return tool(
    async ({ issueId }) => {
      const { issueDelete } = await deps.api.request(MUTATION, { id: issueId }, Answer);
      if (!issueDelete.success) throw new LinearApiError("linear_upstream", "Linear did not delete the issue (success: false); an upstream error.");
      return `Issue ${issueId} moved to Linear's trash.`;
    },
    { name: "linear_delete_issue", description: "Delete a Linear issue (it goes to the trash, restorable for 30 days). Name the issue explicitly.", schema: LinearDeleteIssueInput },
  );
}
