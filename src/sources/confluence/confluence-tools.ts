import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { adfToStorage } from "../atlassian/adf-to-storage.js";
import { markdownToAdf } from "../atlassian/markdown-to-adf.js";
import { storageToText } from "../atlassian/storage-to-text.js";
import { confluenceRefusal, type ConfluenceApi } from "./confluence-api.js";
import { ContentId, type ConfluenceRef } from "./confluence-ref.js";

const MAX_BODY = 30_000;
const clip = (s: string, n = MAX_BODY) => (s.length > n ? `${s.slice(0, n)}\n…(truncated)` : s);
const Format = z.enum(["markdown", "storage"]).default("markdown").describe("markdown (converted) or Confluence storage XHTML as is");
const toStorage = (body: string, format: "markdown" | "storage") => (format === "storage" ? body : adfToStorage(markdownToAdf(body)));

interface Page {
  id: string;
  title: string;
  type?: string;
  space?: { key?: string };
  version?: { number?: number };
  body?: { storage?: { value?: string } };
  _links?: { webui?: string };
}

/** `POST /rest/api/content` body of a comment on `pageId` (a reply in the thread when `threadRoot` is given). */
export function commentBody(pageId: string, storage: string, threadRoot?: string) {
  return {
    type: "comment",
    container: { id: pageId, type: "page" },
    ...(threadRoot ? { ancestors: [{ id: threadRoot }] } : {}),
    body: { storage: { value: storage, representation: "storage" } },
  };
}

/**
 * The agent's Confluence tools, on the install the request came from. Reads reach what the app can see;
 * writes stay in the space of the page that asked (as its re-read says; unknown: no write outside its own page).
 */
export function confluenceTools(api: ConfluenceApi, ref: ConfluenceRef) {
  const link = async (p: Page) => `${await api.siteUrl()}${p._links?.webui ?? `/pages/viewpage.action?pageId=${p.id}`}`;
  const getPage = (id: string) => api.request<Page>("GET", `/rest/api/content/${id}`, { query: { expand: "body.storage,version,space" } });
  // Fails closed: with no space known (the re-read did not say), nothing outside the request's own page is written.
  const spaceRefusal = (key: string | undefined) =>
    !ref.spaceKey
      ? "Refused: I do not know which space this request came from, so I write nowhere but its own page."
      : key !== ref.spaceKey
        ? `Refused: that is outside space ${ref.spaceKey}, where this request came from.`
        : null;

  return [
    tool(
      async ({ pageId }) => {
        try {
          const p = await getPage(pageId);
          const storage = p.body?.storage?.value ?? "";
          return JSON.stringify({ id: p.id, title: p.title, space: p.space?.key, version: p.version?.number, url: await link(p), text: clip(storageToText(storage).text), storage: clip(storage) });
        } catch (err) {
          return confluenceRefusal(err);
        }
      },
      { name: "confluence_get_page", description: "Read a Confluence page: title, space, version, text and its storage-format body.", schema: z.object({ pageId: ContentId }) },
    ),
    tool(
      async ({ spaceKey, title, body, format, parentId }) => {
        const refused = spaceRefusal(spaceKey);
        if (refused) return refused;
        try {
          const p = await api.request<Page>("POST", "/rest/api/content", {
            body: {
              type: "page",
              title,
              space: { key: spaceKey },
              ...(parentId ? { ancestors: [{ id: parentId }] } : {}),
              body: { storage: { value: toStorage(body, format), representation: "storage" } },
            },
          });
          return `Created page ${p.id}: ${await link(p)}`;
        } catch (err) {
          return confluenceRefusal(err);
        }
      },
      {
        name: "confluence_create_page",
        description: "Create a Confluence page in a space (optionally under a parent page).",
        schema: z.object({ spaceKey: z.string().min(1).max(255), title: z.string().min(1).max(255), body: z.string().max(200_000), format: Format, parentId: ContentId.optional() }),
      },
    ),
    tool(
      async ({ pageId, title, body, format }) => {
        try {
          const current = await getPage(pageId);
          const refused = spaceRefusal(current.space?.key);
          if (refused) return refused;
          const version = (current.version?.number ?? 0) + 1;
          await api.request<Page>("PUT", `/rest/api/content/${pageId}`, {
            body: { id: pageId, type: "page", title: title ?? current.title, version: { number: version }, body: { storage: { value: toStorage(body, format), representation: "storage" } } },
          });
          return `Updated page ${pageId} to version ${version}.`;
        } catch (err) {
          return confluenceRefusal(err);
        }
      },
      {
        name: "confluence_update_page",
        description: "Replace a Confluence page's body (and optionally its title); the version is bumped for you.",
        schema: z.object({ pageId: ContentId, title: z.string().min(1).max(255).optional(), body: z.string().max(200_000), format: Format }),
      },
    ),
    tool(
      async ({ pageId, body }) => {
        const target = pageId ?? ref.pageId;
        try {
          if (target !== ref.pageId) {
            const refused = spaceRefusal((await getPage(target)).space?.key);
            if (refused) return refused;
          }
          const root = target === ref.pageId && ref.kind === "comment" ? ref.threadRoot : undefined;
          const c = await api.request<{ id: string }>("POST", "/rest/api/content", { body: commentBody(target, toStorage(body, "markdown"), root) });
          return `Comment ${c.id} posted on page ${target}.`;
        } catch (err) {
          return confluenceRefusal(err);
        }
      },
      {
        name: "confluence_comment",
        description: "Post a comment (Markdown) on a Confluence page; defaults to the request's page and thread.",
        schema: z.object({ pageId: ContentId.optional(), body: z.string().min(1).max(30_000) }),
      },
    ),
    tool(
      async ({ cql, limit }) => {
        try {
          const r = await api.request<{ totalSize?: number; results?: { title?: string; excerpt?: string; url?: string; content?: { id?: string; type?: string } }[] }>("GET", "/rest/api/search", {
            query: { cql, limit: String(limit) },
          });
          const site = await api.siteUrl();
          const results = (r.results ?? []).map((x) => ({ id: x.content?.id, type: x.content?.type, title: x.title, url: x.url ? `${site}${x.url}` : undefined, excerpt: x.excerpt?.slice(0, 300) }));
          return JSON.stringify({ total: r.totalSize ?? results.length, results });
        } catch (err) {
          return confluenceRefusal(err);
        }
      },
      {
        name: "confluence_search",
        description: 'Search Confluence with CQL, e.g. `type = page AND space = ENG AND text ~ "deploy"`.',
        schema: z.object({ cql: z.string().min(1).max(2_000), limit: z.number().int().min(1).max(50).default(10) }),
      },
    ),
  ];
}
