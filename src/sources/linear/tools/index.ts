import type { StructuredToolInterface } from "@langchain/core/tools";
import { linearCommentTool } from "./linear-comment.js";
import { linearCreateIssueTool } from "./linear-create-issue.js";
import { linearDeleteIssueTool } from "./linear-delete-issue.js";
import { linearGetIssueCommentsTool } from "./linear-get-issue-comments.js";
import { linearGetIssueTool } from "./linear-get-issue.js";
import { linearListTeamsTool } from "./linear-list-teams.js";
import { linearSearchIssuesTool } from "./linear-search-issues.js";
import { linearUpdateIssueTool } from "./linear-update-issue.js";
import type { LinearToolDeps } from "./tool-deps.js";

/** The host-side Linear tools of one run (seed 002's list); they hold the credential, the sandbox never does. */
export function linearTools(deps: LinearToolDeps): StructuredToolInterface[] {
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
