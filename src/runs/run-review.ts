import type { BaseMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { UnrecoverableError } from "bullmq";
import { buildRunRecord } from "../agent/run-record.js";
import { renderPrompt } from "../agent/prompts.js";
import { createFetchUrlTool } from "../agent/tools/fetch-url-tool.js";
import { createHttpRequestTool } from "../agent/tools/http-request-tool.js";
import { createWebSearchProvider } from "../agent/tools/web-search/create-web-search-provider.js";
import { createWebSearchTool } from "../agent/tools/web-search-tool.js";
import type { RepoConfig } from "../config/repo-config.js";
import { OpenSweError, errorMessage } from "../errors.js";
import type { Octokit } from "../github/app-auth.js";
import { replyTo } from "../github/reply.js";
import type { ReviewJob } from "../queue/schemas.js";
import type { ReviewCheck } from "../review/review-check.js";
import { isModelCallLimitMessage } from "../agent/middleware/model-call-limit.js";
import { createReviewerTools } from "../review/reviewer-tools.js";
import { runReviewPass, type ReviewPassResult } from "../review/run-review-pass.js";
import { StyleStoreError, renderStyleAppendix, type ReviewStyle } from "../review/style/style-store.js";
import { RunRecords } from "../store/run-records.js";
import { Profile } from "../store/settings-store.js";
import { prRef } from "../shared/thread-id.js";
import type { JobContext } from "../threads/job-context.js";
import type { AgentRuntime } from "../threads/agent-runtime.js";
import { invokeReviewer } from "./review-agent.js";
import { reviewMessage } from "./review-message.js";
import { reviewStores, storeRepo } from "../review/review-stores.js";
import { mirrorFileReader } from "./review-file-reader.js";
import { prepareReviewWorkspace } from "./review-workspace.js";
import { resolveRunModel, type RunModel } from "./resolve-run-model.js";
import { ThreadModelStore } from "../threads/thread-model-store.js";

/** The fields of `GET /pulls/{n}` a review reads. */
export interface ReviewPull {
  state: string;
  draft?: boolean | undefined;
  title: string;
  body?: string | null | undefined;
  user: { login: string } | null;
  head: { sha: string };
}

/**
 * One review pass for a `review` job: model first (a missing key fails the check run and the job
 * with the reason), then `runReviewPass` with a read-only deepagents reviewer over the PR head in a
 * network-off sandbox. A published pass records the head so `synchronize` re-reviews the PR.
 */
export async function runReview(
  data: ReviewJob,
  ctx: JobContext & { runtime: AgentRuntime },
  octokit: Octokit,
  pull: ReviewPull,
  repoConfig: RepoConfig,
  check: ReviewCheck,
): Promise<ReviewPassResult> {
  const { owner, repo, number } = data;
  const keyed = storeRepo(owner, repo);
  const stores = reviewStores(ctx.redis, ctx.prefix);
  const runModel = await resolveReviewModel(data, ctx, octokit, repoConfig, check);
  const style = await readStyle(stores, keyed);
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(ctx.config.env.AGENT_TIMEOUT_MINUTES * 60_000)]);

  const result = await runReviewPass({
    octokit,
    pr: { ...keyed, pull_number: number },
    pull,
    store: stores.findings,
    verdictAuthorized: data.trigger === "mention" && data.verdictRequested,
    botLogins: ctx.config.botLogins,
    severityFloor: repoConfig.review.severity_floor,
    ignoredPaths: repoConfig.review.ignored_paths,
    tokenBudget: ctx.config.env.REVIEW_TOKEN_BUDGET,
    log: ctx.log,
    check,
    readFiles: mirrorFileReader({ config: ctx.config, github: ctx.github, installationId: data.installationId, owner, repo }),
    runReviewer: async ({ session, files, unreviewed, headSha }) => {
      const ws = await prepareReviewWorkspace({
        target: { installationId: data.installationId, owner, repo, number, threadId: data.threadId, headSha },
        github: ctx.github,
        config: ctx.config,
        runtime: ctx.runtime,
        redis: ctx.redis,
        prefix: ctx.prefix,
        log: ctx.log,
      });
      try {
        const search = createWebSearchProvider(ctx.config.webSearch);
        const tools = [...createReviewerTools(session), createHttpRequestTool(), createFetchUrlTool(), ...(search ? [createWebSearchTool(search)] : [])] as StructuredToolInterface[];
        const startedAt = new Date();
        let messages: BaseMessage[] = [];
        let error: unknown;
        try {
          messages = await invokeReviewer({
            model: runModel.model,
            fallbackModel: runModel.fallback,
            sandbox: ws.sandbox,
            systemPrompt: reviewerSystemPrompt(`${owner}/${repo}`, ws.sandbox.workdir, style),
            tools,
            message: reviewMessage({
              owner,
              repo,
              number,
              headSha,
              title: pull.title,
              body: pull.body ?? "",
              author: pull.user?.login ?? data.author ?? "",
              trigger: data.trigger,
              requester: data.requester?.login,
              verdictRequested: data.verdictRequested,
              instructions: data.instructions,
              files,
              unreviewed,
            }),
            threadId: data.threadId,
            modelCallLimit: ctx.config.env.AGENT_MODEL_CALL_LIMIT,
            execTimeoutMs: ctx.config.sandbox.execTimeoutMs,
            signal,
          });
        } catch (err) {
          error = err;
        }
        // Once the review is out, a later failure (the model's closing turn) costs nothing worth a retry.
        const failed = error !== undefined && !session.published;
        const record = buildRunRecord({
          threadId: data.threadId,
          trigger: `review_${data.trigger}`,
          settings: runModel.settings,
          messages,
          startedAt,
          finishedAt: new Date(),
          ...(failed ? { error } : {}),
        });
        if (record.outcome === "incomplete" && session.published) record.outcome = "completed";
        await new RunRecords(ctx.redis, ctx.prefix).save(ctx.jobId, record);
        ctx.log.info(
          {
            model: runModel.settings.modelId,
            source: runModel.settings.source,
            outcome: record.outcome,
            calls: record.modelCalls,
            published: session.published !== null,
            err: error === undefined ? undefined : errorMessage(error),
          },
          "reviewer finished",
        );
        if (failed) throw error;
        if (!session.published && isModelCallLimitMessage(messages.at(-1)))
          return { incomplete: `the reviewer stopped at its limit of ${ctx.config.env.AGENT_MODEL_CALL_LIMIT} model calls before it finished` };
        if (!session.published && record.outcome === "sandbox_failed") return { incomplete: "the review sandbox kept failing, so the reviewer stopped" };
        return undefined;
      } finally {
        await ws.release().catch((err: unknown) => ctx.log.warn({ err: errorMessage(err) }, "could not tear down the review sandbox"));
      }
    },
  });
  if (result.status === "published") await ctx.settings.setReviewedHead(prRef(owner, repo, number), result.headSha);
  return result;
}

/** `prompts/reviewer.md` for the repo, with its learned review style appended when it has one. */
export function reviewerSystemPrompt(repo: string, workspaceRoot: string, style: ReviewStyle | null): string {
  return renderPrompt("reviewer", { repo, workspace_root: workspaceRoot }) + renderStyleAppendix(style);
}

const threadModelOf = async (ctx: JobContext, threadId: string) => {
  const modelId = await new ThreadModelStore(ctx.redis, ctx.prefix).get(threadId);
  return modelId ? { thread: { modelId } } : {};
};

/** A stored style that no longer parses fails the pass with a reason the operator can act on. */
async function readStyle(stores: ReturnType<typeof reviewStores>, keyed: { owner: string; repo: string }): Promise<ReviewStyle | null> {
  try {
    return await stores.styles.get(keyed);
  } catch (err) {
    if (!(err instanceof StyleStoreError)) throw err;
    throw new UnrecoverableError(`the learned review style stored for ${keyed.owner}/${keyed.repo} is corrupt; run \`open-swe analyze ${keyed.owner}/${keyed.repo}\` to rebuild it`);
  }
}

/** The reviewer's model; without one the check run fails with the reason and the job is not retried. */
async function resolveReviewModel(data: ReviewJob, ctx: JobContext, octokit: Octokit, repoConfig: RepoConfig, check: ReviewCheck): Promise<RunModel> {
  try {
    return await resolveRunModel({
      role: "reviewer",
      profile: data.trigger === "mention" && data.requester ? await ctx.settings.getProfile(data.requester.login) : Profile.parse({}),
      team: await ctx.settings.getTeamModels(),
      repoConfig,
      config: ctx.config.model,
      ...(await threadModelOf(ctx, data.threadId)),
    });
  } catch (err) {
    if (!(err instanceof OpenSweError)) throw err;
    const reason = `Cannot review: ${err.message}. An operator needs to fix the model configuration.`;
    await check.settle({ conclusion: "failure", summary: reason });
    if (data.trigger === "mention")
      await replyTo(
        octokit,
        { owner: data.owner, repo: data.repo, number: data.number, comment: data.comment },
        `I can't review this pull request: ${err.message}. An operator needs to fix the model configuration.`,
      );
    throw new UnrecoverableError(reason);
  }
}
