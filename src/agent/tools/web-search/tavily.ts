import { z } from "zod";
import { OpenSweError } from "../../../errors.js";
import type { WebSearchProvider, WebSearchResult } from "./types.js";

const TavilyResponse = z.object({
  results: z.array(z.object({ title: z.string().default(""), url: z.string(), content: z.string().default("") })),
});

export function tavilyProvider(apiKey: string, baseUrl = "https://api.tavily.com"): WebSearchProvider {
  return {
    name: "tavily",
    async search(query, { maxResults, signal }): Promise<WebSearchResult[]> {
      const res = await fetch(`${baseUrl}/search`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ query, max_results: maxResults }),
        ...(signal ? { signal } : {}),
      });
      if (!res.ok) throw new OpenSweError("web_search_failed", `tavily answered HTTP ${res.status}`);
      const parsed = TavilyResponse.safeParse(await res.json());
      if (!parsed.success) throw new OpenSweError("web_search_failed", "tavily answered in an unexpected shape", { cause: parsed.error });
      return parsed.data.results.map((r) => ({ title: r.title, url: r.url, snippet: r.content }));
    },
  };
}
