import { createHash } from "node:crypto";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { OpenSweError } from "../../errors.js";
import { findPostedReply } from "../posted-reply.js";
import { replyTo } from "../reply.js";
import { saveRunState, type GitHubRunContext, type SourceReplyChannel } from "./run-context.js";

export const GitHubCommentInput = z.object({
  body: z.string().min(1).max(60_000).describe("Markdown comment for the person who asked"),
});

const replyKey = (runId: string, body: string): string => `${runId}:comment:${createHash("sha256").update(body).digest("hex").slice(0, 16)}`;

/**
 * A reply in another source's conversation, once per run. Another source's reply is a new message each time:
 * nothing for the summary to be appended to. Resumed, the conversation is read first, as GitHub is below.
 */
export async function postSourceReply(
  ctx: Pick<GitHubRunContext, "effects" | "runId" | "state" | "resumedSince">,
  source: SourceReplyChannel,
  body: string,
): Promise<{ id: number; replayed: boolean }> {
  const resumed = ctx.resumedSince;
  const { replayed } = await ctx.effects.once(replyKey(ctx.runId, body), async () => {
    const posted = resumed !== undefined && (await source.client.postedReply?.(source.origin.ref, body, resumed)) === true;
    if (!posted) await source.client.reply(source.origin.ref, body);
    return { id: 0 };
  });
  ctx.state.replied = true;
  await saveRunState(ctx);
  return { id: 0, replayed };
}

/** Replies where the request came from; the same text in the same run is posted once, even after a crash. */
export async function postRunComment(ctx: GitHubRunContext, body: string): Promise<{ id: number; replayed: boolean }> {
  const { source, target } = ctx;
  if (source) return postSourceReply(ctx, source, body);
  if (!target) throw new OpenSweError("no_reply_target", "this run has nowhere to reply");
  // Resumed from another execution: it may have posted this reply and been cut off from Redis before its
  // record got there, so GitHub is asked first (one call, only on a resume).
  const resumedSince = ctx.resumedSince;
  const { value, replayed } = await ctx.effects.once(
    replyKey(ctx.runId, body),
    async () => (resumedSince ? await findPostedReply(ctx.octokit, target, { body, since: resumedSince, author: ctx.botLogin }) : null) ?? { id: await replyTo(ctx.octokit, target, body) },
  );
  ctx.state.replied = true;
  ctx.state.lastReply = { id: value.id, body };
  await saveRunState(ctx);
  return { id: value.id, replayed };
}

export function githubCommentTool(ctx: GitHubRunContext) {
  return tool(
    async ({ body }) => {
      if (/https:\/\/github\.com\/[^\s]+\/pull\/\d+/.test(body) === false && /pull request|PR #/i.test(body) && !ctx.state.prUrl) {
        return "Refused: the comment mentions a pull request but none has been opened in this run. Open it first and include its link.";
      }
      const { replayed } = await postRunComment(ctx, body);
      return replayed ? "Already posted (this run resumed); not posted again." : "Comment posted.";
    },
    {
      name: "github_comment",
      description: "Post a comment on the issue or pull request this task came from (your reply to the requester).",
      schema: GitHubCommentInput,
    },
  );
}
