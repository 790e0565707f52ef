import type { Redis } from "ioredis";
import type { AppConfig } from "../config/env.js";
import { linearSource } from "./linear/index.js";
import { dashboardSource } from "./dashboard-source.js";
import { confluenceSource } from "./confluence/confluence-source.js";
import { jiraSource } from "./jira/jira-source.js";
import { slackSource } from "./slack/index.js";
import type { Source, SourceName } from "./source.js";

/** What a source may keep state in (Confluence keeps its Connect installs in Redis). */
export interface SourceDeps {
  redis: Redis;
}

/** How a source is built from the app's config; `configured: false` when its secret is unset. */
export type SourceFactory = (config: AppConfig, deps?: SourceDeps) => Source;

/** One line per source; a source not listed here has no routes and no worker client. */
export const SOURCE_FACTORIES: { [N in SourceName]?: SourceFactory } = {
  slack: slackSource,
  linear: (config) => linearSource(config.env, config.env.LINEAR_API_URL ? { apiUrl: config.env.LINEAR_API_URL } : {}),
  dashboard: dashboardSource,
  jira: (config) => jiraSource(config.env),
  confluence: (config, deps) => confluenceSource(config.env, deps ?? null),
};

/** The tools a source's client gives a run that act on the source: its reply, and its other writes. */
export interface SourceToolNames {
  reply: readonly string[];
  writes: readonly string[];
}

/** One line per source: its reply and write tools (a run's completion and idempotency lists are built from these). */
export const SOURCE_TOOL_NAMES: { [N in SourceName]: SourceToolNames } = {
  slack: { reply: ["slack_thread_reply"], writes: [] },
  linear: { reply: ["linear_comment"], writes: ["linear_create_issue", "linear_update_issue", "linear_delete_issue"] },
  jira: { reply: ["jira_comment"], writes: ["jira_create_issue", "jira_update_issue"] },
  confluence: { reply: ["confluence_comment"], writes: ["confluence_create_page", "confluence_update_page"] },
  dashboard: { reply: [], writes: [] },
};

export type SourceRegistry = ReadonlyMap<SourceName, Source>;

/** Every known source, built from config; `extra` replaces or adds sources (tests' fixtures). */
export function buildSourceRegistry(config: AppConfig, extra: readonly Source[] = [], deps?: SourceDeps): SourceRegistry {
  const sources = new Map<SourceName, Source>();
  for (const [name, factory] of Object.entries(SOURCE_FACTORIES) as [SourceName, SourceFactory][]) sources.set(name, factory(config, deps));
  for (const s of extra) sources.set(s.name, s);
  return sources;
}
