export interface WebSearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** One search vendor. Adding one = a file here + a line in `createWebSearchProvider`. */
export interface WebSearchProvider {
  readonly name: string;
  search(query: string, options: { maxResults: number; signal?: AbortSignal }): Promise<WebSearchResult[]>;
}
