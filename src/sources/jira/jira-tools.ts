import { tool } from "@langchain/core/tools";
import type { Version3Client } from "jira.js";
import { z } from "zod";
import { adfToText } from "../atlassian/adf-to-text.js";
import { markdownToAdf } from "../atlassian/markdown-to-adf.js";
import { jiraRefusal } from "./jira-api.js";
import { JiraIssueKey, jiraProjectKey } from "./jira-ref.js";

const MAX_TEXT = 8_000;
const clip = (s: string, n = MAX_TEXT) => (s.length > n ? `${s.slice(0, n)}\n…(truncated)` : s);
// ADF documents are typed loosely by jira.js (`Document`); ours is a strict subset of it.
const adf = (markdown: string) => markdownToAdf(markdown) as never;

interface IssueFields {
  summary?: string;
  description?: unknown;
  status?: { name?: string };
  issuetype?: { name?: string };
  assignee?: { displayName?: string } | null;
  labels?: string[];
}

/**
 * The agent's Jira tools for one conversation (`issueKey`: the request's issue) or for a run of a repository
 * linked to `project`. Reads reach any issue the bot account can see; writes (comment, create, update) stay
 * inside that project, so text planted in an issue cannot make the run write across the whole site.
 */
export function jiraTools(api: Version3Client, scope: { project: string; issueKey?: string }, siteUrl: string) {
  const { project } = scope;
  const inProject = (key: string) => jiraProjectKey(key) === project;
  const outside = (key: string) =>
    scope.issueKey ? `Refused: ${key} is outside project ${project}, where this request came from.` : `Refused: ${key} is outside project ${project}, the one linked to this repository.`;
  const browse = (key: string) => `${siteUrl.replace(/\/$/, "")}/browse/${key}`;

  return [
    tool(
      async ({ issueKey, body }) => {
        const key = issueKey ?? scope.issueKey;
        if (!key) return "Name the issue (issueKey): this run was not asked from a Jira issue.";
        if (!inProject(key)) return outside(key);
        try {
          const c = await api.issueComments.addComment<{ id: string }>({ issueIdOrKey: key, comment: adf(body) });
          return `Comment ${c.id} posted on ${key}.`;
        } catch (err) {
          return jiraRefusal(err);
        }
      },
      {
        name: "jira_comment",
        description: "Post a comment (Markdown) on a Jira issue; defaults to the issue this request came from.",
        schema: z.object({ issueKey: JiraIssueKey.optional(), body: z.string().min(1).max(30_000) }),
      },
    ),
    tool(
      async ({ issueKey }) => {
        try {
          const issue = await api.issues.getIssue<{ key: string; fields: IssueFields }>({
            issueIdOrKey: issueKey,
            fields: ["summary", "description", "status", "issuetype", "assignee", "labels"],
          });
          const f = issue.fields;
          return JSON.stringify({
            key: issue.key,
            url: browse(issue.key),
            summary: f.summary ?? "",
            type: f.issuetype?.name,
            status: f.status?.name,
            assignee: f.assignee?.displayName ?? null,
            labels: f.labels ?? [],
            description: clip(adfToText(f.description).text),
          });
        } catch (err) {
          return jiraRefusal(err);
        }
      },
      { name: "jira_get_issue", description: "Read a Jira issue: summary, type, status, assignee, labels, description.", schema: z.object({ issueKey: JiraIssueKey }) },
    ),
    tool(
      async ({ issueKey, maxResults }) => {
        try {
          const page = await api.issueComments.getComments<{ total?: number; comments?: { id: string; author?: { displayName?: string }; created?: string; body?: unknown }[] }>({
            issueIdOrKey: issueKey,
            maxResults,
            orderBy: "-created",
          });
          const comments = (page.comments ?? []).map((c) => ({ id: c.id, author: c.author?.displayName ?? "unknown", created: c.created, text: clip(adfToText(c.body).text, 2_000) }));
          return JSON.stringify({ total: page.total ?? comments.length, newestFirst: comments });
        } catch (err) {
          return jiraRefusal(err);
        }
      },
      {
        name: "jira_get_issue_comments",
        description: "Read the newest comments of a Jira issue (newest first).",
        schema: z.object({ issueKey: JiraIssueKey, maxResults: z.number().int().min(1).max(50).default(20) }),
      },
    ),
    tool(
      async ({ projectKey, summary, description, issueType, labels }) => {
        const key = projectKey ?? project;
        if (key !== project) return outside(key);
        try {
          const created = await api.issues.createIssue<{ key: string }>({
            fields: {
              project: { key },
              summary,
              issuetype: { name: issueType },
              ...(description ? { description: adf(description) } : {}),
              ...(labels ? { labels } : {}),
            },
          });
          return `Created ${created.key}: ${browse(created.key)}`;
        } catch (err) {
          return jiraRefusal(err);
        }
      },
      {
        name: "jira_create_issue",
        description: "Create a Jira issue (description in Markdown) in the project this request came from.",
        schema: z.object({
          projectKey: z
            .string()
            .regex(/^[A-Z][A-Z0-9_]{0,63}$/)
            .optional(),
          summary: z.string().min(1).max(255),
          description: z.string().max(30_000).optional(),
          issueType: z.string().min(1).max(60).default("Task"),
          labels: z
            .array(z.string().regex(/^\S{1,255}$/))
            .max(20)
            .optional(),
        }),
      },
    ),
    tool(
      async ({ issueKey, summary, description, labels }) => {
        if (!inProject(issueKey)) return outside(issueKey);
        const fields = {
          ...(summary ? { summary } : {}),
          ...(description ? { description: adf(description) } : {}),
          ...(labels ? { labels } : {}),
        };
        if (Object.keys(fields).length === 0) return "Nothing to update: give a summary, a description or labels.";
        try {
          await api.issues.editIssue({ issueIdOrKey: issueKey, fields });
          return `Updated ${issueKey} (${Object.keys(fields).join(", ")}).`;
        } catch (err) {
          return jiraRefusal(err);
        }
      },
      {
        name: "jira_update_issue",
        description: "Change a Jira issue's summary, description (Markdown, replaces it) or labels (replaces them).",
        schema: z.object({
          issueKey: JiraIssueKey,
          summary: z.string().min(1).max(255).optional(),
          description: z.string().max(30_000).optional(),
          labels: z
            .array(z.string().regex(/^\S{1,255}$/))
            .max(20)
            .optional(),
        }),
      },
    ),
    tool(
      async ({ query, maxResults }) => {
        try {
          const page = await api.projects.searchProjects<{ total?: number; values?: { key: string; name: string }[] }>({ maxResults, ...(query ? { query } : {}) });
          return JSON.stringify({ total: page.total, projects: (page.values ?? []).map((p) => ({ key: p.key, name: p.name })) });
        } catch (err) {
          return jiraRefusal(err);
        }
      },
      {
        name: "jira_list_projects",
        description: "List the Jira projects the bot can see (optionally filtered by a name/key query).",
        schema: z.object({ query: z.string().max(100).optional(), maxResults: z.number().int().min(1).max(100).default(50) }),
      },
    ),
  ];
}
