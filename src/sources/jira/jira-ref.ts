import { z } from "zod";

export const JiraIssueKey = z.string().regex(/^[A-Z][A-Z0-9_]{0,63}-\d{1,12}$/, "a Jira issue key like ABC-123");

/** Where the worker answers a Jira request: the issue, and the comment that asked (absent for a new issue). */
export const JiraRef = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("comment"), site: z.string().min(1), issueKey: JiraIssueKey, commentId: z.string().regex(/^\d{1,20}$/) }),
  z.object({ kind: z.literal("issue"), site: z.string().min(1), issueKey: JiraIssueKey }),
]);
export type JiraRef = z.infer<typeof JiraRef>;

export const jiraThreadKey = (site: string, issueKey: string) => `jira:${site}:${issueKey}`;
export const jiraProjectKey = (issueKey: string) => issueKey.slice(0, issueKey.lastIndexOf("-"));
