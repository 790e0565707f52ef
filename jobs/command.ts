import type { CommandJob } from "../src/queue/schemas.js";
import { handleApprovalCommand, handleApprovalTimeout } from "../src/approvals/handle-approval.js";
import { AutofixLedger } from "../src/autofix/autofix-ledger.js";
import type { AutofixReason } from "../src/autofix/decide.js";
import { autofixStatusReply } from "../src/autofix/status-reply.js";
import { loadRepoConfig, RepoConfigError } from "../src/config/repo-config.js";
import { fixCiReply } from "../src/autofix/fix-ci-reply.js";
import { handleCiEvent, manualCiEvent } from "../src/autofix/handle-ci-event.js";
import { autofixToggleReply } from "../src/autofix/toggle-reply.js";
import { replyTo } from "../src/github/reply.js";
import { helpText } from "../src/github/help-text.js";
import { prRef } from "../src/shared/thread-id.js";
import { errorMessage } from "../src/errors.js";
import { upstreamStatusOf } from "../src/shared/upstream-failure.js";
import { authorizeRequester } from "../src/github/authorize.js";
import type { JobContext, JobOutcome } from "../src/worker/job-context.js";

export async function processCommand(data: CommandJob, ctx: JobContext): Promise<JobOutcome> {
  if (data.command === "approval_timeout") return handleApprovalTimeout(data, ctx);
  const octokit = await ctx.github.installation(data.installationId);
  // The requester of the paused run may decide without write access; the handler checks everyone else.
  if (data.command === "approval") return handleApprovalCommand(data, ctx, octokit);
  const target = { owner: data.owner, repo: data.repo, number: data.number, comment: data.comment, login: data.requester.login };
  if (!(await authorizeRequester(ctx, octokit, target))) return { outcome: "refused" };
  switch (data.command) {
    case "autofix": {
      const ref = prRef(data.owner, data.repo, data.number);
      await ctx.settings.setAutofix(ref, data.enabled);
      // Only the PR number is looked up: a PR our run opened is recorded by number when it is opened.
      const origin = await ctx.prThreads.origin({ owner: data.owner, repo: data.repo, number: data.number, body: null, authorLogin: null }, `${ctx.config.env.APP_SLUG}[bot]`);
      await replyTo(octokit, target, autofixToggleReply(data.enabled, origin !== null));
      return { outcome: "autofix", pr: ref, enabled: data.enabled };
    }
    case "autofix_status": {
      const ref = prRef(data.owner, data.repo, data.number);
      const origin = await ctx.prThreads.origin({ owner: data.owner, repo: data.repo, number: data.number, body: null, authorLogin: null }, `${ctx.config.env.APP_SLUG}[bot]`);
      const requester = origin ? await ctx.prThreads.requester(origin) : null;
      const repoEnabled = await ctx.settings.isRepoEnabled(`${data.owner}/${data.repo}`);
      let config = null;
      try {
        if (repoEnabled && requester) config = await loadRepoConfig(octokit, data.owner, data.repo);
      } catch (err) {
        if (!(err instanceof RepoConfigError)) throw err;
        await replyTo(octokit, target, `I could not use \`.github/open-swe.yml\`: ${err.message}.\n\n${err.details}`);
        return { outcome: "autofix_status_config_invalid", pr: ref };
      }
      const facts = {
        repoEnabled,
        requester: requester?.login ?? null,
        prToggle: await ctx.settings.getAutofix(ref),
        requesterAutoFixCi: requester ? (await ctx.settings.getProfile(requester.login)).autoFixCi : false,
        repoDefault: config?.autofix.default ?? false,
        attempts: (await new AutofixLedger(ctx.redis, ctx.prefix).attempts(ref, "")).total,
        maxAttempts: config?.autofix.max_attempts ?? 0,
      };
      await replyTo(octokit, target, autofixStatusReply(facts));
      return { outcome: "autofix_status", pr: ref, ...facts };
    }
    case "fix_ci": {
      let result;
      try {
        result = await handleCiEvent(manualCiEvent(data), ctx, { requester: data.requester, comment: data.comment, ...(data.allowTestConfig ? { allowTestConfig: true as const } : {}) });
      } catch (err) {
        // The writer who asked is answered: the repository's config, or (on the last attempt) GitHub's trouble.
        if (err instanceof RepoConfigError) {
          await replyTo(octokit, target, `I could not use \`.github/open-swe.yml\`, so no fix run started: ${err.message}.\n\n${err.details}`);
          return { outcome: "fix_ci_config_invalid" };
        }
        if (ctx.attempt >= ctx.config.env.JOB_ATTEMPTS) {
          ctx.log.error({ err: errorMessage(err) }, "fix ci failed on its last attempt");
          const status = upstreamStatusOf(err);
          await replyTo(
            octokit,
            target,
            status !== undefined
              ? `I could not start the fix run: GitHub kept failing (HTTP ${status}), an upstream error, not your request. Try \`fix ci\` again later.`
              : "I could not start the fix run: an internal error stopped it (the worker's log has the details). Try `fix ci` again later.",
          );
        }
        throw err;
      }
      const reply = fixCiReply(result.reason as AutofixReason, { pending: result.pending });
      if (reply) await replyTo(octokit, target, reply);
      return { ...result, outcome: `fix_ci_${result.outcome}` };
    }
    case "help":
      await replyTo(octokit, target, helpText(ctx.config.env.MENTION_HANDLES[0] ?? "open-swe", data.reason));
      return { outcome: "help" };
  }
}
