import { braveProvider } from "./brave.js";
import { tavilyProvider } from "./tavily.js";
import type { WebSearchProvider } from "./types.js";

export interface WebSearchConfig {
  tavilyApiKey?: string;
  braveApiKey?: string;
}

export function readWebSearchConfig(env: Record<string, string | undefined>): WebSearchConfig {
  const config: WebSearchConfig = {};
  const tavily = env["TAVILY_API_KEY"]?.trim();
  const brave = env["BRAVE_SEARCH_API_KEY"]?.trim();
  if (tavily) config.tavilyApiKey = tavily;
  if (brave) config.braveApiKey = brave;
  return config;
}

/** The configured search vendor, or undefined: without a key the `web_search` tool is simply left out. */
export function createWebSearchProvider(config: WebSearchConfig): WebSearchProvider | undefined {
  if (config.tavilyApiKey) return tavilyProvider(config.tavilyApiKey);
  if (config.braveApiKey) return braveProvider(config.braveApiKey);
  return undefined;
}
