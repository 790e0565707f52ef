/** The web search vendor keys (`TAVILY_API_KEY` first, then `BRAVE_SEARCH_API_KEY`); none leaves `web_search` out. */
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
