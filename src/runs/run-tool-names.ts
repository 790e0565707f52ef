import type { StructuredToolInterface } from "@langchain/core/tools";
import { createFetchUrlTool } from "../agent/tools/fetch-url-tool.js";
import { createHttpRequestTool } from "../agent/tools/http-request-tool.js";
import type { WebSearchProvider } from "../agent/tools/web-search/types.js";
import { createWebSearchTool } from "../agent/tools/web-search-tool.js";
import { githubTools } from "../github/tools/index.js";
import { confluenceTools } from "../sources/confluence/confluence-tools.js";
import { jiraTools } from "../sources/jira/jira-tools.js";
import { linearTools } from "../sources/linear/tools/index.js";
import { slackTools } from "../sources/slack/slack-tools.js";
import { commitAndPushTool } from "./commit-and-push-tool.js";

/**
 * Every host-side tool a run can have (GitHub runs and each source's), by name, read off the tool
 * factories themselves: the one list `open-swe agents list` checks agent files against. The factories
 * touch their context only when a tool is called, so building them over nothing is safe here.
 */
export function runToolNames(): string[] {
  const none = {} as never;
  const search: WebSearchProvider = { name: "none", search: async () => [] } as unknown as WebSearchProvider;
  const tools: StructuredToolInterface[] = [
    commitAndPushTool(none, none),
    ...(githubTools({ verdictAuthorized: false } as never, { isPullRequest: true }) as StructuredToolInterface[]),
    createHttpRequestTool(),
    createFetchUrlTool(),
    createWebSearchTool(search)!,
    ...(slackTools(none, none) as StructuredToolInterface[]),
    ...(jiraTools(none, { kind: "issue", site: "example.atlassian.net", issueKey: "X-1" }, "") as StructuredToolInterface[]),
    ...(confluenceTools(none, { kind: "page", clientKey: "none", pageId: "1" }) as StructuredToolInterface[]),
    ...linearTools(none),
  ];
  return [...new Set(tools.map((t) => t.name))].sort();
}
