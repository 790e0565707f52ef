import { z } from "zod";

export const ContentId = z
  .union([z.string(), z.number()])
  .transform(String)
  .pipe(z.string().regex(/^\d{1,20}$/, "a Confluence content id"));

/**
 * Whose credentials answer: a Connect install (`clientKey`) or the API token of the site an Automation rule
 * posted from (`site`, its host). Exactly one of them. `receivedAt` (ms): when the web tier took an
 * Automation request in, for the worker's freshness check of the re-read content.
 */
const Credentials = {
  clientKey: z.string().min(1).max(256).optional(),
  site: z.string().min(1).max(256).optional(),
  spaceKey: z.string().max(255).optional(),
  receivedAt: z.number().int().positive().optional(),
};

/** Where the worker answers: the credentials, the page, and the comment thread (absent: a page mention). */
export const ConfluenceRef = z
  .discriminatedUnion("kind", [
    z.object({ kind: z.literal("comment"), pageId: ContentId, commentId: ContentId, threadRoot: ContentId, ...Credentials }),
    z.object({ kind: z.literal("page"), pageId: ContentId, ...Credentials }),
  ])
  .refine((r) => (r.clientKey === undefined) !== (r.site === undefined), "a Confluence reference names either a Connect install (clientKey) or a site");
export type ConfluenceRef = z.infer<typeof ConfluenceRef>;

export const confluenceThreadKey = (site: string, pageId: string, root: string) => `confluence:${site}:${pageId}:${root}`;
