import { createHash } from "node:crypto";
import { UnrecoverableError } from "bullmq";
import type { Octokit } from "../github/app-auth.js";
import { loadRepoConfig, RepoConfigError } from "../config/repo-config.js";
import { errorMessage } from "../errors.js";
import { GitHubUnreachableError } from "../github/permission.js";
import { jobHasWriteAccess } from "../github/authorize.js";
import { jobId } from "../queue/job-ids.js";
import type { AgentJob, CiEventJob } from "../queue/schemas.js";
import { headInBase } from "../shared/head-in-base.js";
import { prRef, threadId as prThreadId } from "../shared/thread-id.js";
import type { JobContext, JobOutcome } from "../threads/job-context.js";
import { AutofixLedger } from "./autofix-ledger.js";
import { BatchedEvents, replayBatched } from "./batched-events.js";
import { readCiState, type CiState } from "./ci-state.js";
import { ciFingerprint, conflictFingerprint, decideAutofix, type AutofixDecision, type AutofixInput, type AutofixTrigger } from "./decide.js";
import { ciFixMessage, conflictFixMessage, reviewFixMessage } from "./fix-message.js";
import { postCompletedCheckRun } from "../shared/check-runs.js";
import { AUTOFIX_CHECK_NAME, CAP_COMMENT, skipNotice, type SkipFacts } from "./skip-notice.js";

const RECHECK_MS = 120_000;

interface OpenPr {
  number: number;
  state: string;
  body: string | null;
  user: { login: string } | null;
  /** `repo`: where the head branch lives (a fork's, or null for a deleted fork). */
  head: { sha: string; ref: string; repo?: { full_name: string } | null };
  base: { sha: string; ref: string };
}

/**
 * The PR a red check is about: the event names it, or the head commit's open PR in this repo (a PR whose
 * head is in this repository first: a fork's PR on the same commit must not hide ours).
 */
async function resolvePr(octokit: Octokit, data: Pick<CiEventJob, "owner" | "repo" | "prNumbers" | "headSha">): Promise<OpenPr | null> {
  const repo = { owner: data.owner, repo: data.repo };
  const number = data.prNumbers[0];
  if (number !== undefined) return (await octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", { ...repo, pull_number: number })).data as OpenPr;
  const { data: prs } = await octokit.request("GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls", { ...repo, commit_sha: data.headSha });
  const open = prs.filter((p) => p.state === "open" && p.head.sha === data.headSha) as OpenPr[];
  return open.find((p) => headInBase(p.head.repo?.full_name, repo)) ?? open[0] ?? null;
}

/** Nothing else known: the first rule that applies decides, so later facts need not be fetched. */
const UNKNOWN: Omit<AutofixInput, "repoEnabled"> = {
  trigger: "ci",
  pr: null,
  prToggle: null,
  repoDefault: false,
  thread: null,
  requesterAutoFixCi: false,
  attempts: { total: 0, onHead: 0 },
  maxAttempts: 1,
  failing: null,
  pending: [],
  failingOnBase: [],
  fingerprint: "",
  handled: [],
  botLogins: [],
};

/** A skip a person can change is shown on the head as a neutral check (once per head and reason); the cap also gets one comment. */
async function showSkip(
  octokit: Octokit,
  ledger: AutofixLedger,
  at: { owner: string; repo: string; number: number; ref: string; headSha: string },
  reason: AutofixDecision["reason"],
  facts: SkipFacts,
): Promise<void> {
  const notice = skipNotice(reason, facts);
  if (!notice) return;
  if (await ledger.once(at.ref, `check:${at.headSha}:${reason}`)) {
    await postCompletedCheckRun(octokit, at, AUTOFIX_CHECK_NAME, "neutral", { title: notice.title, summary: notice.summary });
  }
  if (notice.capReached && (await ledger.once(at.ref, "cap-comment"))) {
    await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", { owner: at.owner, repo: at.repo, issue_number: at.number, body: CAP_COMMENT(facts.attempts.total) });
  }
}

/** Review feedback counts only from a writer; GitHub not answering counts as "cannot" (fail closed). */
async function canWrite(ctx: JobContext, octokit: Octokit, data: CiEventJob, log: JobContext["log"]): Promise<boolean> {
  if (!data.reviewer) return false;
  try {
    return await jobHasWriteAccess(ctx, octokit, { owner: data.owner, repo: data.repo, login: data.reviewer });
  } catch (err) {
    if (!(err instanceof GitHubUnreachableError)) throw err;
    log.warn({ reviewer: data.reviewer, err: err.message }, "CI autofix: reviewer's write access unknown (GitHub unreachable): not a writer");
    return false;
  }
}

/** `@open-swe fix ci` from a writer: on any PR, acting for them, answering their comment. */
export interface ManualFix {
  requester: { login: string; id: number };
  comment: NonNullable<AgentJob["comment"]>;
  /** `fix ci --allow-test-config`: the run may change how tests are selected or run. */
  allowTestConfig?: true;
}

/** The `ci-event` payload a `fix ci` on PR #n stands for: no check named, the PR's head read from GitHub. */
export function manualCiEvent(job: { installationId: number; owner: string; repo: string; number: number; deliveryId: string }): CiEventJob {
  return {
    installationId: job.installationId,
    owner: job.owner,
    repo: job.repo,
    kind: "check_run",
    name: "fix ci",
    conclusion: "requested",
    headSha: "",
    headBranch: null,
    prNumbers: [job.number],
    detailsUrl: null,
    deliveryId: job.deliveryId,
  };
}

/**
 * A red check on a PR the agent opened becomes a fix run on the thread that opened it, when every gate
 * of `decideAutofix` says so; every decision is one log line and a record on the PR.
 */
export async function handleCiEvent(data: CiEventJob, ctx: JobContext, manual?: ManualFix): Promise<JobOutcome> {
  const trigger: AutofixTrigger = data.kind === "review_feedback" ? "review_feedback" : data.kind === "merge_conflict" ? "merge_conflict" : "ci";
  const log = ctx.log.child({ kind: data.kind, check: data.name, sha: data.headSha, ...(manual ? { manual: manual.requester.login } : {}) });
  const ledger = new AutofixLedger(ctx.redis, ctx.prefix);
  const repoName = `${data.owner}/${data.repo}`;
  const done = async (decision: AutofixDecision, facts: { pr?: string; fingerprint?: string; attempt?: number; [k: string]: unknown } = {}): Promise<JobOutcome> => {
    log.info({ ...decision, ...facts }, `CI autofix: ${decision.action} (${decision.reason})`);
    if (facts.pr)
      await ledger.record(facts.pr, {
        ...decision,
        at: Date.now(),
        trigger,
        fingerprint: facts.fingerprint ?? "",
        headSha: typeof facts.headSha === "string" ? facts.headSha : data.headSha,
        attempt: facts.attempt ?? 0,
      });
    return { outcome: decision.action, reason: decision.reason, ...facts };
  };

  const repoEnabled = await ctx.settings.isRepoEnabled(repoName);
  if (!repoEnabled) return done(decideAutofix({ ...UNKNOWN, repoEnabled }));

  const octokit = await ctx.github.installation(data.installationId);
  const show = (number: number, ref: string, headSha: string, decision: AutofixDecision, facts: SkipFacts) =>
    showSkip(octokit, ledger, { owner: data.owner, repo: data.repo, number, ref, headSha }, decision.reason, facts).catch((err: unknown) =>
      log.warn({ err: errorMessage(err), reason: decision.reason }, "CI autofix: could not show the skip on the pull request"),
    );

  const repo = { owner: data.owner, repo: data.repo };
  const found = await resolvePr(octokit, data);
  const ref = found ? prRef(data.owner, data.repo, found.number) : undefined;
  const prToggle = ref ? await ctx.settings.getAutofix(ref) : null;
  const threadId = found
    ? await ctx.prThreads.origin(
        { ...repo, number: found.number, body: found.body, authorLogin: found.user?.login, head: { ref: found.head.ref, repo: found.head.repo?.full_name ?? null } },
        `${ctx.config.env.APP_SLUG}[bot]`,
      )
    : null;
  let requester = threadId ? await ctx.prThreads.requester(threadId) : null;
  if (threadId && !requester && !manual) log.warn({ threadId }, "CI autofix: the PR's thread has no recorded requester; treated as no agent thread");
  // `fix ci` acts for the writer who asked: on our PR in the thread that opened it, on another PR in that PR's own thread.
  const runThread = manual && found ? (threadId ?? prThreadId({ kind: "pr", owner: data.owner, repo: data.repo, number: found.number })) : threadId;
  if (manual) requester = manual.requester;
  const thread = runThread && requester ? { id: runThread, requester: requester.login, active: (await ctx.locks.holder(runThread)) !== null } : null;
  const pr = found
    ? { open: found.state === "open", headSha: found.head.sha, baseSha: found.base.sha, headInBase: headInBase(found.head.repo?.full_name, repo), headCommitAuthor: null as string | null }
    : null;
  const early = decideAutofix({ ...UNKNOWN, repoEnabled, pr, prToggle, thread, requesterAutoFixCi: true, repoDefault: true, ...(manual ? { manual: true } : {}) });
  if (early.action === "skip" && ["no_open_pr", "fork_head", "pr_disabled", "no_agent_thread"].includes(early.reason)) {
    if (early.reason === "fork_head")
      log.info({ pr: ref, headRepo: found?.head.repo?.full_name ?? null }, "CI autofix: the head is another repository's (a fork); only a writer's `fix ci` acts on it");
    if (found && ref && !manual) await show(found.number, ref, found.head.sha, early, { attempts: { total: 0, onHead: 0 }, maxAttempts: 0, headCommitAuthor: null, failing: [] });
    return done(early, { ...(ref ? { pr: ref } : {}) });
  }
  // From here `pr`, `thread` and `ref` are set (the rules above stop otherwise).

  let config;
  try {
    config = await loadRepoConfig(octokit, data.owner, data.repo);
  } catch (err) {
    // `fix ci` answers the writer who asked with it (jobs/command.ts); an automatic run fails without retries.
    if (err instanceof RepoConfigError && !manual) throw new UnrecoverableError(`CI autofix: ${err.message}\n${err.details}`);
    throw err;
  }
  const headSha = pr!.headSha;
  let head: CiState | null = null;
  if (trigger === "ci") {
    try {
      head = await readCiState(octokit, repo, headSha, ctx.config.env.APP_SLUG);
    } catch (err) {
      log.warn({ err: errorMessage(err) }, "CI autofix: could not read the head's checks");
    }
  }
  let failingOnBase: string[] = [];
  if (head && head.failing.length > 0) {
    failingOnBase = await readCiState(octokit, repo, pr!.baseSha, ctx.config.env.APP_SLUG)
      .then((s) => s.failing.map((f) => f.name))
      .catch((err: unknown) => (log.warn({ err: errorMessage(err) }, "CI autofix: could not read the base's checks; counted as green"), []));
  }
  const commit = await octokit.request("GET /repos/{owner}/{repo}/commits/{ref}", { ...repo, ref: headSha });
  pr!.headCommitAuthor = commit.data.author?.login ?? null;

  let pending = head?.pending ?? [];
  if (pending.length > 0) {
    const since = await ledger.firstPendingAt(ref!, headSha, Date.now());
    if (Date.now() - since >= ctx.config.env.AUTOFIX_SETTLE_MINUTES * 60_000) pending = [];
  }
  const failingNames = head ? [...new Set(head.failing.map((f) => f.name))] : null;
  const fingerprint =
    trigger === "ci" ? ciFingerprint(headSha, failingNames ?? []) : trigger === "merge_conflict" ? conflictFingerprint(headSha, pr!.baseSha) : `review:${data.reviewId ?? data.deliveryId}`;
  const reviewerCanWrite = trigger === "review_feedback" ? await canWrite(ctx, octokit, data, log) : undefined;
  const profile = await ctx.settings.getProfile(thread!.requester);
  const input: AutofixInput = {
    trigger,
    ...(reviewerCanWrite !== undefined ? { reviewerCanWrite } : {}),
    ...(manual ? { manual: true } : {}),
    repoEnabled,
    pr,
    prToggle,
    repoDefault: config.autofix.default,
    thread,
    requesterAutoFixCi: profile.autoFixCi,
    attempts: await ledger.attempts(ref!, headSha),
    maxAttempts: config.autofix.max_attempts,
    failing: failingNames,
    pending,
    failingOnBase,
    fingerprint,
    handled: await ledger.handled(ref!),
    botLogins: ctx.config.botLogins,
  };
  let decision = decideAutofix(input);
  const facts = { pr: ref!, fingerprint, threadId: thread!.id, headSha };

  if (decision.action === "wait" && !manual) {
    const recheck = jobId("autofix-recheck", ref!.replace(/[/#]/g, "_"), headSha, Math.floor(Date.now() / RECHECK_MS));
    await ctx.queues.add("ci-event", { ...data, deliveryId: recheck }, recheck, { delay: RECHECK_MS, via: ctx.provenance.via });
    return done(decision, { ...facts, attempt: input.attempts.total });
  }
  if (decision.action === "wait") return done(decision, { ...facts, attempt: input.attempts.total, pending });
  if (decision.action === "skip") {
    if (!manual) await show(found!.number, ref!, headSha, decision, { attempts: input.attempts, maxAttempts: input.maxAttempts, headCommitAuthor: pr!.headCommitAuthor, failing: failingNames ?? [] });
    return done(decision, { ...facts, attempt: input.attempts.total });
  }

  if (decision.action === "batch" && !manual) {
    await new BatchedEvents(ctx.redis, ctx.prefix).store(thread!.id, fingerprint, data);
    // The run may have ended between our look at its lock and the store: then nobody would replay it.
    const replayed = (await ctx.locks.holder(thread!.id)) === null ? await replayBatched(ctx, thread!.id) : 0;
    return done(decision, { ...facts, attempt: input.attempts.total, ...(replayed ? { replayed } : {}) });
  }

  // Built before the claim: if reading the logs or the review fails, the retry still finds the attempt unspent.
  const text =
    trigger === "ci"
      ? await ciFixMessage(octokit, repo, { number: found!.number, headSha }, head!.failing)
      : trigger === "merge_conflict"
        ? conflictFixMessage({ number: found!.number, headSha }, found!.base.ref)
        : await reviewFixMessage(octokit, repo, { number: found!.number, headSha }, data.reviewId);
  // Dispatch or batch: claimed atomically, so a redelivery or a second red check on the head racing us does nothing.
  const claim = await ledger.claim(ref!, { fingerprint, headSha, maxAttempts: input.maxAttempts, ci: trigger === "ci", counts: decision.action === "dispatch" });
  if (claim !== "ok") decision = { action: "skip", reason: claim };
  if (decision.action === "skip") return done(decision, { ...facts, attempt: input.attempts.total });

  const attempt = input.attempts.total + (decision.action === "dispatch" ? 1 : 0);
  // A flaky head's re-run gives its fingerprint back: the next red on it is a new job, not a duplicate id.
  const reruns = trigger === "ci" ? await ledger.reruns(ref!, headSha) : 0;
  const agentJob = jobId("autofix", thread!.id, createHash("sha256").update(fingerprint).digest("hex").slice(0, 16), decision.action, ...(reruns > 0 ? [`r${reruns}`] : []));
  // A writer's `fix ci` on a busy thread: its agent job becomes a follow-up its run reads (jobs/agent.ts).
  await ctx.queues.add(
    "agent",
    {
      installationId: data.installationId,
      ...repo,
      number: found!.number,
      isPullRequest: true,
      threadId: thread!.id,
      trigger: "ci_fix",
      requester: requester!,
      text,
      ...(manual ? { comment: manual.comment } : {}),
      ...(manual?.allowTestConfig ? { allowTestConfig: true as const } : {}),
      ...(trigger === "ci" ? { autofixHead: headSha } : {}),
      ...(trigger === "merge_conflict" ? { autofixBase: found!.base.ref } : {}),
      deliveryId: agentJob,
    },
    agentJob,
    // A reviewer's feedback is that reviewer acting on the run (never as its requester); red checks act for the requester.
    { via: ctx.provenance.via, ...(!manual && data.kind === "review_feedback" && data.reviewer ? { principal: { login: data.reviewer } } : {}) },
  );
  return done(decision, { ...facts, attempt, agentJob });
}
