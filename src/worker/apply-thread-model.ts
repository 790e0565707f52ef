import { allowedThreadModels, chooseThreadModel } from "../agent/model/thread-model.js";
import type { Octokit } from "../github/app-auth.js";
import { replyTo, type ReplyTarget } from "../github/reply.js";
import { ThreadModelStore } from "../threads/thread-model-store.js";
import type { JobContext } from "./job-context.js";

/**
 * A request's `--model <id>` becomes its thread's model; a model this installation does not allow gets
 * one reply listing those it does, and the request is not run. Returns false when refused.
 */
export async function applyThreadModel(ctx: JobContext, octokit: Octokit, target: ReplyTarget, job: { threadId: string; model?: string | undefined }): Promise<boolean> {
  if (!job.model) return true;
  const choice = chooseThreadModel(job.model, allowedThreadModels(ctx.config.env.THREAD_MODELS));
  if (!choice.ok) {
    ctx.log.info({ model: job.model }, "thread model refused");
    await replyTo(octokit, target, choice.reply);
    return false;
  }
  await new ThreadModelStore(ctx.redis, ctx.prefix).set(job.threadId, choice.modelId);
  return true;
}
