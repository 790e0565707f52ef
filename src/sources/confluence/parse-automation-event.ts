import { z } from "zod";
import type { SourceEvent } from "../source.js";
import { ContentId, confluenceThreadKey, type ConfluenceRef } from "./confluence-ref.js";

/**
 * What an Automation rule's "Send web request" posts (README, From Confluence): the event and the ids to
 * re-read, nothing else we act on. A space, a title, an author or a text in the body is ignored: the worker
 * re-reads the content with the API token, and the space, the page and the comment thread come from that.
 */
const AutomationBody = z.looseObject({
  event: z.enum(["comment_created", "page_created"]),
  page: z.looseObject({ id: ContentId }).optional(),
  comment: z.looseObject({ id: ContentId }).optional(),
});

/** A verified Automation request → a candidate to re-read (the worker runs it only if it mentions the app). */
export function parseAutomationEvent(raw: Buffer, opts: { site: string; receivedAt: Date }): SourceEvent {
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch {
    return { kind: "ignore", reason: "body is not JSON" };
  }
  const parsed = AutomationBody.safeParse(json);
  if (!parsed.success) return { kind: "ignore", reason: `not a Confluence Automation request (${parsed.error.issues[0]?.path.join(".") || "body"})` };
  const { event, page, comment } = parsed.data;
  const { site } = opts;
  const receivedAt = opts.receivedAt.getTime();
  const user = { id: "unknown" };
  if (event === "comment_created") {
    if (!comment || !page) return { kind: "ignore", reason: "comment_created without comment.id and page.id" };
    // Provisional until the worker re-reads the comment: the page as claimed, its own thread, no space.
    const ref: ConfluenceRef = { kind: "comment", site, pageId: page.id, commentId: comment.id, threadRoot: comment.id, receivedAt };
    return { kind: "mention", dedupeKey: `confluence:${site}:comment:${comment.id}`, threadKey: confluenceThreadKey(site, page.id, comment.id), text: "", user, ref };
  }
  if (!page) return { kind: "ignore", reason: "page_created without page.id" };
  const ref: ConfluenceRef = { kind: "page", site, pageId: page.id, receivedAt };
  return { kind: "mention", dedupeKey: `confluence:${site}:page:${page.id}:created`, threadKey: confluenceThreadKey(site, page.id, "page"), text: "", user, ref };
}
