import { DEFAULT_REPLY_TOOLS, SIDE_EFFECT_TOOLS } from "../agent/side-effect-tools.js";
import { SOURCE_TOOL_NAMES } from "../sources/registry.js";
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

const sources = Object.values(SOURCE_TOOL_NAMES);

/** A run's reply tools: GitHub's and every source's. A successful one means the run answered. */
export const RUN_REPLY_TOOLS: readonly string[] = [...DEFAULT_REPLY_TOOLS, ...sources.flatMap((s) => s.reply)];

/** A run's side-effecting tools: the host's and every source's replies and writes; a resumed step does not repeat them. */
export const RUN_SIDE_EFFECT_TOOLS: readonly string[] = [...SIDE_EFFECT_TOOLS, ...sources.flatMap((s) => [...s.reply, ...s.writes])];

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
    ...(jiraTools(none, { project: "X" }, "") as StructuredToolInterface[]),
    ...(confluenceTools(none, { kind: "page", clientKey: "none", pageId: "1" }) as StructuredToolInterface[]),
    ...linearTools(none),
  ];
  return [...new Set(tools.map((t) => t.name))].sort();
}
