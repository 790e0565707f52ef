import { tool } from "langchain";
import { z } from "zod";
import { guardedFetch, type LookupAll } from "../../net/http-guard.js";

export interface HttpToolDeps {
  lookup?: LookupAll;
  maxBytes?: number;
  timeoutMs?: number;
}

export const HttpRequestInput = z.object({
  url: z.string().describe("Absolute http(s) URL on the public internet"),
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]).default("GET"),
  headers: z.record(z.string(), z.string()).optional().describe("Request headers"),
  body: z.string().optional().describe("Request body, sent as is"),
});

/** Fetch options without keys whose value is undefined (exactOptionalPropertyTypes). */
export function fetchOptions(deps: HttpToolDeps): { lookup?: LookupAll; maxBytes?: number; timeoutMs?: number } {
  return Object.fromEntries(Object.entries(deps).filter(([, v]) => v !== undefined));
}

/** `http_request`: a raw HTTP call to a public API; status, headers and body come back as text. */
export function createHttpRequestTool(deps: HttpToolDeps = {}) {
  return tool(
    async ({ url, method, headers, body }) => {
      const res = await guardedFetch(url, { ...fetchOptions(deps), method, ...(headers ? { headers } : {}), ...(body !== undefined ? { body } : {}) });
      const head = [`HTTP ${res.status}`, ...Object.entries(res.headers).map(([k, v]) => `${k}: ${v}`)];
      if (res.redirects.length > 0) head.push(`(redirected to ${res.url})`);
      return `${head.join("\n")}\n\n${res.body}${res.truncated ? "\n[body truncated]" : ""}`;
    },
    {
      name: "http_request",
      description: "Make an HTTP request to a public URL (private, loopback, cloud-metadata and this machine's own addresses are refused). Returns status, headers and body.",
      schema: HttpRequestInput,
    },
  );
}
