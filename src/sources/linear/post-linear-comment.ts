import { z } from "zod";
import { LinearApiError, type LinearApi } from "./linear-api.js";
import type { LinearRef } from "./linear-ref.js";

const COMMENT_CREATE = `mutation OpenSweCommentCreate($input: CommentCreateInput!) {
  commentCreate(input: $input) { success comment { id url } }
}`;

const Answer = z.object({ commentCreate: z.object({ success: z.boolean(), comment: z.object({ id: z.string(), url: z.string().optional() }).nullish() }) });

/** A comment in the trigger's thread: under the triggering comment's thread, or on the issue itself (a linked run names only the issue). */
export async function postLinearComment(api: LinearApi, ref: Pick<LinearRef, "issueId" | "parentId">, body: string): Promise<{ id: string; url?: string }> {
  const input = { issueId: ref.issueId, body, ...(ref.parentId ? { parentId: ref.parentId } : {}) };
  const answer = await api.request(COMMENT_CREATE, { input }, Answer);
  const comment = answer.commentCreate.comment;
  if (!answer.commentCreate.success || !comment) throw new LinearApiError("linear_upstream", "Linear did not create the comment (success: false); an upstream error.");
  return { id: comment.id, ...(comment.url ? { url: comment.url } : {}) };
}
