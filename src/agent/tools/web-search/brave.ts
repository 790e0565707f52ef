import { z } from "zod";
import { OpenSweError } from "../../../errors.js";
import type { WebSearchProvider, WebSearchResult } from "./types.js";

const BraveResponse = z.object({
  web: z.object({ results: z.array(z.object({ title: z.string().default(""), url: z.string(), description: z.string().default("") })) }).optional(),
});

export function braveProvider(apiKey: string, baseUrl = "https://api.search.brave.com"): WebSearchProvider {
  return {
    name: "brave",
    async search(query, { maxResults, signal }): Promise<WebSearchResult[]> {
      const url = new URL("/res/v1/web/search", baseUrl);
      url.searchParams.set("q", query);
      url.searchParams.set("count", String(maxResults));
      const res = await fetch(url, { headers: { "x-subscription-token": apiKey, accept: "application/json" }, ...(signal ? { signal } : {}) });
      if (!res.ok) throw new OpenSweError("web_search_failed", `brave search answered HTTP ${res.status}`);
      const parsed = BraveResponse.safeParse(await res.json());
      if (!parsed.success) throw new OpenSweError("web_search_failed", "brave search answered in an unexpected shape", { cause: parsed.error });
      return (parsed.data.web?.results ?? []).map((r) => ({ title: r.title, url: r.url, snippet: r.description.replace(/<[^>]+>/g, "") }));
    },
  };
}
