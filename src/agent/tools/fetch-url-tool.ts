import { tool } from "langchain";
import { z } from "zod";
import { guardedFetch } from "../../net/http-guard.js";
import { fetchOptions, type HttpToolDeps } from "./http-request-tool.js";

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** Readable text from HTML: scripts, styles and tags dropped, block ends kept as line breaks. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style|noscript|svg)\b[\s\S]*?<\/\1>/gi, "")
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<(br|\/p|\/div|\/li|\/h[1-6]|\/tr|\/pre)\b[^>]*>/gi, "\n")
    .replace(/<[^>]+>/g, "")
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (m, e: string) => {
      if (e.startsWith("#x") || e.startsWith("#X")) return String.fromCodePoint(parseInt(e.slice(2), 16));
      if (e.startsWith("#")) return String.fromCodePoint(Number(e.slice(1)));
      return ENTITIES[e.toLowerCase()] ?? m;
    })
    .replace(/[ \t]+/g, " ")
    .replace(/\n\s*\n\s*/g, "\n\n")
    .trim();
}

/** `fetch_url`: GET a public page or document and return its text (HTML converted). */
export function createFetchUrlTool(deps: HttpToolDeps = {}) {
  return tool(
    async ({ url }) => {
      const res = await guardedFetch(url, fetchOptions(deps));
      const type = res.headers["content-type"] ?? "";
      const text = /html/i.test(type) ? htmlToText(res.body) : res.body;
      const note = res.truncated ? "\n[content truncated]" : "";
      if (res.status >= 400) return `HTTP ${res.status} from ${res.url}\n\n${text}${note}`;
      return `${res.url}\n\n${text}${note}`;
    },
    {
      name: "fetch_url",
      description: "Fetch a public web page or document and return its text. Private, loopback, cloud-metadata and this machine's own addresses are refused.",
      schema: z.object({ url: z.string().describe("Absolute http(s) URL") }),
    },
  );
}
