import { UnrecoverableError } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { AppConfig } from "../config/env.js";
import { GitHubUnreachableError, hasWriteAccess } from "./permission.js";
import { NOT_ALLOWED_REPLY, replyTo, type ReplyTarget } from "./reply.js";
import type { Octokit } from "./app-auth.js";
import { keyer } from "../store/keys.js";

/** What a job's write-access check needs: its Redis cache, the permission settings, a logger. */
type AccessCtx = { redis: Redis; prefix: string; config: Pick<AppConfig, "env">; log: Logger };

export const GITHUB_UNREACHABLE_REPLY = (login: string) =>
  `Thanks @${login}. I could not reach GitHub to check that you can write to this repository, so I have not started anything. Please ask again in a few minutes.`;

/** `hasWriteAccess` with this job's Redis cache and retry budget. */
export function jobHasWriteAccess(ctx: AccessCtx, octokit: Octokit, who: { owner: string; repo: string; login: string }): Promise<boolean> {
  return hasWriteAccess({
    octokit,
    redis: ctx.redis,
    prefix: ctx.prefix,
    cacheSeconds: ctx.config.env.PERMISSION_CACHE_SECONDS,
    budgetMs: ctx.config.env.PERMISSION_CHECK_BUDGET_SECONDS * 1000,
    ...who,
  });
}

/**
 * Checks the requester's write access before any work; a refusal is answered once, politely. GitHub not
 * answering is not a refusal: the reply says so and the job fails with that cause.
 */
export async function authorizeRequester(ctx: AccessCtx, octokit: Octokit, target: ReplyTarget & { login: string }): Promise<boolean> {
  let allowed: boolean;
  try {
    allowed = await jobHasWriteAccess(ctx, octokit, target);
  } catch (err) {
    if (!(err instanceof GitHubUnreachableError)) throw err;
    ctx.log.warn({ login: target.login, attempts: err.attempts, err: err.message }, "write access unknown: GitHub unreachable");
    await replyTo(octokit, target, GITHUB_UNREACHABLE_REPLY(target.login)).catch((e: unknown) => ctx.log.warn({ err: String(e) }, "could not reply either"));
    throw new UnrecoverableError(err.message);
  }
  if (!allowed) {
    // One refusal per person per issue or PR within the window: a review of 40 mentions by someone who
    // cannot write gets one answer (in the first comment's thread), not 40.
    const key = refusalReplyKey(ctx.prefix, target);
    const first = (await ctx.redis.set(key, "1", "EX", REFUSAL_REPLY_SECONDS, "NX")) === "OK";
    ctx.log.info({ login: target.login, replied: first }, first ? "requester lacks write access: refused" : "requester lacks write access: refused (already told within the hour)");
    if (first) await replyTo(octokit, target, NOT_ALLOWED_REPLY(target.login));
  }
  return allowed;
}

/** A non-writer is told they cannot ask at most once per issue or PR within this window. */
export const REFUSAL_REPLY_SECONDS = 3600;

function refusalReplyKey(prefix: string, t: { owner: string; repo: string; number: number; login: string }): string {
  return keyer(`${prefix}:refusal-reply`)(`${t.owner}/${t.repo}#${t.number}`, t.login.toLowerCase());
}
