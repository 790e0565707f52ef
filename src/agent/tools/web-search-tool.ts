import { tool } from "langchain";
import { z } from "zod";
import type { WebSearchProvider } from "./web-search/types.js";

/** `web_search`, or undefined when no provider is configured (the tool is off, not failing). */
export function createWebSearchTool(provider: WebSearchProvider | undefined, timeoutMs = 15_000) {
  if (!provider) return undefined;
  return tool(
    async ({ query, max_results }) => {
      const results = await provider.search(query, { maxResults: max_results, signal: AbortSignal.timeout(timeoutMs) });
      if (results.length === 0) return `No results for "${query}".`;
      return results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}\n   ${r.snippet.trim()}`).join("\n");
    },
    {
      name: "web_search",
      description: "Search the web (docs, error messages, release notes). Returns titles, URLs and snippets; open a result with fetch_url.",
      schema: z.object({ query: z.string().min(1), max_results: z.number().int().min(1).max(10).default(5) }),
    },
  );
}
