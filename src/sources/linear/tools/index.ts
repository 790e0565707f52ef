import type { StructuredToolInterface } from "@langchain/core/tools";
import type { LinearRef } from "../linear-ref.js";
import { linearCommentTool, linearLinkedCommentTool } from "./linear-comment.js";
import { linearCreateIssueTool } from "./linear-create-issue.js";
import { linearDeleteIssueTool } from "./linear-delete-issue.js";
import { linearGetIssueCommentsTool } from "./linear-get-issue-comments.js";
import { linearGetIssueTool } from "./linear-get-issue.js";
import { linearListTeamsTool } from "./linear-list-teams.js";
import { linearSearchIssuesTool } from "./linear-search-issues.js";
import { linearUpdateIssueTool } from "./linear-update-issue.js";
import type { LinearToolDeps } from "./tool-deps.js";

/** The host-side Linear tools of one run (seed 002's list); they hold the credential, the sandbox never does. */
export function linearTools(deps: LinearToolDeps & { ref: LinearRef }): StructuredToolInterface[] {
  return [
    linearCommentTool(deps),
    linearGetIssueTool(deps),
    linearGetIssueCommentsTool(deps),
    linearCreateIssueTool(deps),
    linearUpdateIssueTool(deps),
    linearDeleteIssueTool(deps),
    linearSearchIssuesTool(deps),
    linearListTeamsTool(deps),
  ];
}

/**
 * A run of a repository linked to a Linear team (`settings source-repo set linear:<team id> o/r`), asked
 * anywhere else: reads reach what the key can see; comment, create and update stay in `team`. No delete.
 */
export function linearLinkedTools(deps: Omit<LinearToolDeps, "ref" | "team"> & { team: string }): StructuredToolInterface[] {
  return [
    linearLinkedCommentTool(deps),
    linearGetIssueTool(deps),
    linearGetIssueCommentsTool(deps),
    linearCreateIssueTool(deps),
    linearUpdateIssueTool(deps),
    linearSearchIssuesTool(deps),
    linearListTeamsTool(deps),
  ];
}
