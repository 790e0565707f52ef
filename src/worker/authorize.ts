import { hasWriteAccess } from "../github/permission.js";
import { NOT_ALLOWED_REPLY, replyTo, type ReplyTarget } from "../github/reply.js";
import type { Octokit } from "../github/app-auth.js";
import type { JobContext } from "./job-context.js";

/** Checks the requester's write access before any work; a refusal is answered once, politely. */
export async function authorizeRequester(ctx: JobContext, octokit: Octokit, target: ReplyTarget & { login: string }): Promise<boolean> {
  const allowed = await hasWriteAccess({
    octokit,
    redis: ctx.redis,
    prefix: ctx.prefix,
    cacheSeconds: ctx.config.env.PERMISSION_CACHE_SECONDS,
    owner: target.owner,
    repo: target.repo,
    login: target.login,
  });
  if (!allowed) {
    ctx.log.info({ login: target.login }, "requester lacks write access: refused");
    await replyTo(octokit, target, NOT_ALLOWED_REPLY(target.login));
  }
  return allowed;
}
