import { z } from "zod";
import type { SourceEvent } from "../source.js";
import { hostOf } from "../atlassian/host-of.js";
import { ContentId, confluenceThreadKey, type ConfluenceRef } from "./confluence-ref.js";

// Connect's token signs the method and URL, not this body: only the ids to re-read are taken from it. The
// space and the comment thread come from the re-read content (`trustedConversation`), never from here.
const Webhook = z.looseObject({
  userAccountId: z.string().optional(),
  comment: z
    .looseObject({
      id: ContentId,
      self: z.string().optional(),
      parent: z.looseObject({ id: ContentId }),
    })
    .optional(),
  page: z.looseObject({ id: ContentId, self: z.string().optional() }).optional(),
});

/**
 * A verified Connect webhook → what to do. Confluence sends no body with these events, so every new comment
 * or page is a candidate: the worker re-reads it and runs only when it mentions the app (and is not its own).
 */
export function parseConfluenceEvent(raw: Buffer, install: { clientKey: string; baseUrl: string }): SourceEvent {
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch {
    return { kind: "ignore", reason: "body is not JSON" };
  }
  const parsed = Webhook.safeParse(json);
  if (!parsed.success) return { kind: "ignore", reason: `not a comment or page event (${parsed.error.issues[0]?.path.join(".") || "body"})` };
  const site = hostOf(install.baseUrl)!;
  const fromSite = (self: string | undefined) => self === undefined || hostOf(self) === site;
  const user = { id: parsed.data.userAccountId ?? "unknown" };
  const { comment, page } = parsed.data;
  if (comment) {
    if (!fromSite(comment.self)) return { kind: "ignore", reason: "content from another site" };
    // Provisional until the worker re-reads the comment: its own thread, no space.
    const ref: ConfluenceRef = { kind: "comment", clientKey: install.clientKey, pageId: comment.parent.id, commentId: comment.id, threadRoot: comment.id };
    return {
      kind: "mention",
      dedupeKey: `confluence:${install.clientKey}:comment:${comment.id}`,
      threadKey: confluenceThreadKey(site, comment.parent.id, comment.id),
      text: "",
      user,
      ref,
    };
  }
  if (page) {
    if (!fromSite(page.self)) return { kind: "ignore", reason: "content from another site" };
    const ref: ConfluenceRef = { kind: "page", clientKey: install.clientKey, pageId: page.id };
    return {
      kind: "mention",
      dedupeKey: `confluence:${install.clientKey}:page:${page.id}:created`,
      threadKey: confluenceThreadKey(site, page.id, "page"),
      text: "",
      user,
      ref,
    };
  }
  return { kind: "ignore", reason: "neither a comment nor a page" };
}
