import { z } from "zod";
import { isPostedReply } from "../../shared/is-posted-reply.js";
import type { LinearApi } from "./linear-api.js";
import type { LinearRef } from "./linear-ref.js";

// The credential's own user (`viewer`) is who `commentCreate` posts as.
const POSTED_REPLY = `query OpenSweLinearPostedReply($id: String!, $since: DateTimeOrDuration!) {
  viewer { id }
  issue(id: $id) {
    comments(first: 100, filter: { createdAt: { gte: $since } }) { nodes { body createdAt user { id } } }
  }
}`;

const Answer = z.object({
  viewer: z.object({ id: z.string() }),
  issue: z.object({ comments: z.object({ nodes: z.array(z.object({ body: z.string(), createdAt: z.string(), user: z.object({ id: z.string() }).nullish() })) }) }).nullish(),
});

/** Whether our own user commented `body` on the issue at or after `since` (the first 100 comments since then). */
export async function linearPostedReply(api: LinearApi, ref: Pick<LinearRef, "issueId">, body: string, since: string): Promise<boolean> {
  const answer = await api.request(POSTED_REPLY, { id: ref.issueId, since }, Answer);
  const want = { author: answer.viewer.id, text: body, sinceMs: Date.parse(since) };
  return (answer.issue?.comments.nodes ?? []).some((c) => isPostedReply({ author: c.user?.id, text: c.body, createdAtMs: Date.parse(c.createdAt) }, want));
}
