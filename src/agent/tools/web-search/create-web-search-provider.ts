import { braveProvider } from "./brave.js";
import { tavilyProvider } from "./tavily.js";
import type { WebSearchConfig } from "../../../config/web-search-config.js";
import type { WebSearchProvider } from "./types.js";

/** The configured search vendor, or undefined: without a key the `web_search` tool is simply left out. */
export function createWebSearchProvider(config: WebSearchConfig): WebSearchProvider | undefined {
  if (config.tavilyApiKey) return tavilyProvider(config.tavilyApiKey);
  if (config.braveApiKey) return braveProvider(config.braveApiKey);
  return undefined;
}
