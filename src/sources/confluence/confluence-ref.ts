import { z } from "zod";

export const ContentId = z
  .union([z.string(), z.number()])
  .transform(String)
  .pipe(z.string().regex(/^\d{1,20}$/, "a Confluence content id"));

/** Where the worker answers: the install (whose credentials), the page, and the comment thread (absent: a page mention). */
export const ConfluenceRef = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("comment"), clientKey: z.string().min(1).max(256), pageId: ContentId, commentId: ContentId, threadRoot: ContentId, spaceKey: z.string().max(255).optional() }),
  z.object({ kind: z.literal("page"), clientKey: z.string().min(1).max(256), pageId: ContentId, spaceKey: z.string().max(255).optional() }),
]);
export type ConfluenceRef = z.infer<typeof ConfluenceRef>;

export const confluenceThreadKey = (site: string, pageId: string, root: string) => `confluence:${site}:${pageId}:${root}`;
