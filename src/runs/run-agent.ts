import type { StructuredToolInterface } from "@langchain/core/tools";
import { UnrecoverableError } from "bullmq";
import { buildRunRecord } from "../agent/run-record.js";
import { RUN_REPLY_TOOLS, RUN_SIDE_EFFECT_TOOLS } from "./run-tool-names.js";
import type { RunRecord } from "../shared/run-record.js";
import { BUILTIN_TOOL_NAMES, resolveRunToolPolicies } from "../config/tool-policy.js";
import { requestApproval } from "../approvals/handle-approval.js";
import { sourceApprovalChannel } from "../sources/source-approval.js";
import { RunEvents, toolExecutedEvent } from "../observability/run-events.js";
import type { SetupClock } from "../observability/setup-clock.js";
import { connectMcpServers, mcpFailureNote } from "../mcp/connect-mcp-servers.js";
import { runMcpServers } from "../config/mcp-config.js";
import { secretBoxFromEnv } from "../store/secret-box.js";
import { gateCiFix } from "../autofix/confidence-gate.js";
import { createFetchUrlTool } from "../agent/tools/fetch-url-tool.js";
import { createHttpRequestTool } from "../agent/tools/http-request-tool.js";
import { createWebSearchProvider } from "../agent/tools/web-search/create-web-search-provider.js";
import { createWebSearchTool } from "../agent/tools/web-search-tool.js";
import { loadRepoConfig, RepoConfigError } from "../config/repo-config.js";
import { OpenSweError } from "../errors.js";
import type { Octokit } from "../github/app-auth.js";
import { reactToRequest } from "../github/react-to-request.js";
import { replyTo } from "../github/reply.js";
import { prAuthorFor } from "../github/user-pr-author.js";
import { postRunComment } from "../github/tools/github-comment.js";
import { githubTools } from "../github/tools/index.js";
import { loadRunState, saveRunState, type GitHubRunContext } from "../github/tools/run-context.js";
import type { RunSourceChannel } from "../sources/source.js";
import type { AgentJob } from "../queue/schemas.js";
import { sourceChannel } from "../sources/source-run.js";
import { RunRecords } from "../store/run-records.js";
import { ThreadModelStore } from "../threads/thread-model-store.js";
import type { JobContext } from "../threads/job-context.js";
import type { SourceRegistry } from "../sources/registry.js";
import { LockLostError } from "../shared/lock-lost.js";
import type { AgentRuntime } from "../threads/agent-runtime.js";
import { shareBranchWithSandbox } from "../sandbox/workspace/share-branch.js";
import { sandboxWhenReady } from "../sandbox/sandbox-when-ready.js";
import { commitAndPushTool, commitCaps } from "./commit-and-push-tool.js";
import { finishRun } from "./finish-run.js";
import { invokeAgent } from "./invoke-agent.js";
import { prepareRunWorkspace } from "./prepare-run-workspace.js";
import { resolveRunModel } from "./resolve-run-model.js";
import { runMode, runPromptParts, serverDeniedByPolicy } from "./run-prompt-parts.js";
import { linkedTrackerTools } from "../sources/linked-tracker-tools.js";
import { prConventionsText } from "../config/pr-conventions.js";
import { completionFacts } from "./completion-facts.js";
import { prepareAgentInputs } from "./prepare-agent-inputs.js";
import { recordStoppedWork } from "./record-stopped-work.js";
import { lostWorkspaceReplyNote, lostWorkspaceResumeNote, resumedRunFacts } from "./resume-truth.js";
import { STOP_REASON } from "../store/run-stop.js";
import { isLastAttempt, setupFailureReply } from "./setup-failure.js";
import { failureReason } from "../shared/failure-reason.js";
import { stoppedWorkNote, takeThreadStop } from "../threads/thread-stop.js";
import { taskMessage } from "./task-message.js";

const optional = <T>(t: T | undefined): T[] => (t === undefined ? [] : [t]);

/** Says `message` where the request came from (its source's conversation, or the issue/PR). */
async function replyFailure(octokit: Octokit, data: AgentJob, channel: RunSourceChannel | null, message: string): Promise<void> {
  if (channel) await channel.client.reply(channel.origin.ref, message);
  else if (data.number !== undefined) await replyTo(octokit, { owner: data.owner, repo: data.repo, number: data.number, comment: data.comment }, message);
}

/** A user-facing problem (bad config, no model key): reply once, fail the job without retries. */
async function refuse(ctx: JobContext, octokit: Octokit, data: AgentJob, channel: RunSourceChannel | null, message: string): Promise<never> {
  await ctx.fence();
  await replyFailure(octokit, data, channel, message);
  throw new UnrecoverableError(message);
}

/** How a run's start is timed and ended: set-up laps, and the end of its start priority at the first model call. */
export interface RunStart {
  clock: SetupClock;
  started: () => void;
}

/**
 * One coding-agent run: model → workspace → deepagents over the sandbox with host-side tools →
 * record and summary. Resumes from the last checkpoint when the job is retried after a crash.
 */
export async function runAgent(data: AgentJob, ctx: JobContext & { sources: SourceRegistry }, octokit: Octokit, runtime: AgentRuntime, start: RunStart): Promise<RunRecord> {
  const channel = sourceChannel(ctx, data);
  const { clock, started } = start;
  // Every outward effect of this execution goes through its fence: lost the job's lock, it does nothing more.
  const effects = runtime.effects.withFence(ctx.fence);
  // The repo config (an API call) and the requester's settings (Redis) are fetched together.
  const secretBox = secretBoxFromEnv(ctx.config.env);
  const [loaded, profile, team, threadModel, teamToolPolicies, teamMcpServers, teamMcpSecrets] = await Promise.all([
    loadRepoConfig(octokit, data.owner, data.repo).then(
      (repoConfig) => ({ repoConfig }),
      (error: unknown) => ({ error }),
    ),
    ctx.settings.getProfile(data.requester.login),
    ctx.settings.getTeamModels(),
    new ThreadModelStore(ctx.redis, ctx.prefix).get(data.threadId),
    ctx.settings.getToolPolicies(),
    ctx.settings.getMcpServers(),
    secretBox ? ctx.settings.getMcpSecrets(secretBox) : null,
  ]);
  if ("error" in loaded) {
    const err = loaded.error;
    if (err instanceof RepoConfigError) return refuse(ctx, octokit, data, channel, `I could not use \`.github/open-swe.yml\`: ${err.message}.\n\n${err.details}`);
    throw err;
  }
  const { repoConfig } = loaded;
  clock.lap("config");
  let runModel;
  try {
    runModel = await resolveRunModel({ role: "agent", profile, team, repoConfig, config: ctx.config.model, ...(threadModel ? { thread: { modelId: threadModel } } : {}) });
  } catch (err) {
    if (err instanceof OpenSweError) return refuse(ctx, octokit, data, channel, `I can't start: ${err.message}. An operator needs to fix the model configuration.`);
    throw err;
  }

  const gated = await gateCiFix(data, ctx, octokit, effects, runModel);
  if (gated.record) return gated.record;
  clock.lap("model");

  // Who opens the PR and the linked trackers' tools do not depend on the workspace: asked for while it is prepared.
  // "Open PRs as me" is the token of whoever acts in this job (its verified principal): a follow-up or an
  // approval by another person never reaches the first requester's token; nobody acting → the app's.
  const actor = ctx.provenance.principal;
  const besideWorkspace = Promise.all([
    actor
      ? (actor.login.toLowerCase() !== data.requester.login.toLowerCase() ? ctx.settings.getProfile(actor.login) : Promise.resolve(profile)).then((actorProfile) =>
          prAuthorFor({ config: ctx.config, redis: ctx.redis, prefix: ctx.prefix, log: ctx.log, login: actor.login, profile: actorProfile }),
        )
      : null,
    // The trackers this repository is linked to (`settings source-repo`), other than the run's own source.
    linkedTrackerTools({ settings: ctx.settings, sources: ctx.sources, repo: `${data.owner}/${data.repo}`, runSource: channel?.origin.kind ?? null, log: ctx.log }),
  ]);
  besideWorkspace.catch(() => undefined);
  // Before the agent loop (workspace, sandbox): a failure here is said once, with its cause, on the last attempt.
  const setupFailed = async (err: unknown): Promise<never> => {
    if (!ctx.lockLost() && isLastAttempt(err, ctx.attempt, ctx.config.env.JOB_ATTEMPTS)) {
      ctx.log.error({ err: String(err) }, "run failed before the agent loop");
      await effects
        .once(`${ctx.jobId}:setup-failure`, async () => (await replyFailure(octokit, data, channel, setupFailureReply(err)), true))
        .catch((e: unknown) => ctx.log.warn({ err: String(e) }, "could not say why the run could not start"));
    }
    throw err;
  };
  const ws = await prepareRunWorkspace({
    target: data,
    octokit,
    github: ctx.github,
    config: ctx.config,
    repoConfig,
    runtime,
    redis: ctx.redis,
    prefix: ctx.prefix,
    signer: ctx.queues.signer,
    log: ctx.log,
  }).catch(setupFailed);
  // The checkout starts as the first model call goes out (or at the first use of the sandbox, if sooner), not while the
  // rest of the set-up still competes for the CPU; the agent's and tools' first use of the sandbox waits for it.
  // A merge-conflict fix merges the base in: the sandbox gets it as origin/<base>.
  const setupAborted = new AbortController();
  let readying: Promise<void> | undefined;
  const ready = (): Promise<void> => {
    if (readying) return readying;
    readying = ws.prepare().then(async () => {
      if (data.autofixBase) await shareBranchWithSandbox(ws.sandbox, ws.mirror, data.autofixBase, ws.expectedOld);
    });
    readying.catch((err: unknown) => setupAborted.abort(err));
    return readying;
  };
  const sandbox = sandboxWhenReady(ws.sandbox, ready);
  clock.lap("workspace");
  let expectedOld = ws.expectedOld;
  const gh: GitHubRunContext = {
    octokit,
    installationId: data.installationId,
    owner: data.owner,
    repo: data.repo,
    threadId: data.threadId,
    runId: ctx.jobId,
    target: !channel && data.number !== undefined ? { owner: data.owner, repo: data.repo, number: data.number, comment: data.comment } : null,
    ...(channel ? { source: channel } : {}),
    requester: data.requester,
    branch: ws.branch,
    baseBranch: ws.baseBranch,
    effects,
    queues: ctx.queues,
    provenance: ctx.provenance,
    prThreads: ctx.prThreads,
    verdictAuthorized: data.verdictAuthorized,
    botLogin: ws.botLogin,
    state: { replied: false },
    conventions: { pr: repoConfig.pr, footer: repoConfig.footer },
  };
  gh.state = await loadRunState(gh);
  // What an earlier attempt of this job pushed: a resumed run's reply says what it pushed after that.
  const pushedAtStart = gh.state.pushedSha;
  const [prAuthor, trackerTools] = await besideWorkspace;
  if (prAuthor) gh.prAuthor = prAuthor;
  // A source run answers with the source's own tools; `github_comment` would post nowhere anyone reads.
  const sourceTools = channel ? channel.client.tools(channel.origin.ref) : [];
  // Stdio servers start inside the run's sandbox; a server that fails is left out and the reply says so.
  const policySources = { repo: repoConfig.agent.tools, team: teamToolPolicies };
  // A server whose every tool policy denies is not started at all; the prompt says it is configured but denied.
  const mcpEntries = runMcpServers(teamMcpServers, repoConfig.agent.mcp_servers);
  const deniedServers = mcpEntries.filter((e) => serverDeniedByPolicy(e.name, policySources)).map((e) => e.name);
  const mcp = await connectMcpServers(
    mcpEntries.filter((e) => !deniedServers.includes(e.name)),
    {
      sandbox,
      // The environment's `MCP_SECRET_<NAME>` win over secrets stored in settings.
      secrets: { ...(teamMcpSecrets ?? {}), ...ctx.config.mcpSecrets },
      runTimeoutMs: ctx.config.env.AGENT_TIMEOUT_MINUTES * 60_000,
      signal: ctx.signal,
      log: ctx.log,
    },
  );
  for (const f of mcp.failures) ctx.log.warn({ server: f.name, reason: f.reason }, "MCP server left out of the run");
  const tools = [
    commitAndPushTool(gh, {
      sandbox,
      mirror: ws.mirror,
      remoteUrl: ws.remote,
      expectedOld: () => expectedOld,
      onPushed: async (sha) => {
        expectedOld = sha;
        await saveRunState(gh);
      },
      token: () => ctx.github.repoScopedToken(data.installationId, data.repo),
      allowWorkflowChanges: repoConfig.agent.allow_workflow_changes,
      maxBundleBytes: ctx.config.sandbox.maxBundleBytes,
      caps: commitCaps(ctx.config),
      guardTests: data.trigger === "ci_fix",
      ...(data.autofixBase ? { guardTestsAcceptFrom: `refs/heads/${data.autofixBase}` } : {}),
      ...(data.allowTestConfig ? { allowTestConfig: true } : {}),
    }),
    ...githubTools(gh, { isPullRequest: data.isPullRequest }).filter((t) => !channel || t.name !== "github_comment"),
    ...sourceTools,
    ...trackerTools,
    createHttpRequestTool(),
    createFetchUrlTool(),
    ...optional(createWebSearchTool(createWebSearchProvider(ctx.config.webSearch))),
    ...mcp.tools,
  ] as StructuredToolInterface[];
  clock.lap("tools");
  const toolPolicies = resolveRunToolPolicies([...BUILTIN_TOOL_NAMES, ...tools.map((t) => t.name)], policySources);
  const promptParts = runPromptParts({
    mode: runMode(data),
    repoInstructions: repoConfig.agent.instructions,
    prConventions: prConventionsText(repoConfig.pr),
    userInstructions: profile.instructions,
    requester: data.requester.login,
    mcp: { connected: mcp.connected, failed: mcp.failures, denied: deniedServers },
  });
  // Agents and skills, screenshots and `--context` files, the budget (src/runs/prepare-agent-inputs.ts).
  // The first run after a Stop on this thread is told so (once), and does not pick the stopped work up.
  const priorStop = await takeThreadStop(ctx.redis, ctx.prefix, data.threadId);
  const replyTools = sourceTools.map((t) => t.name).filter((n) => RUN_REPLY_TOOLS.includes(n));
  const task = taskMessage(data, ws.branch, ws.baseBranch, ws.workspaceLost, channel ? { channel, replyTools } : null, priorStop);
  const inputs = await prepareAgentInputs({ data, ctx, ws, task, tools, repoConfig, runModel, profile, team });
  const startedAt = new Date();
  const events = new RunEvents(ctx.redis, ctx.prefix, (err) => ctx.log.warn({ err: String(err) }, "could not record a run event"));
  await events.emit({ type: "run.started", runId: ctx.jobId, threadId: data.threadId, repo: `${data.owner}/${data.repo}`, trigger: data.trigger, model: runModel.settings.modelId });
  const startedKey = `${ctx.jobId}:started`;
  let acked = false;
  clock.lap("inputs");
  const { messages, meter, error, resumed, interrupt } = await invokeAgent({
    model: runModel.model,
    sandbox,
    tools,
    toolPolicies,
    onToolExecuted: (name, ms, result) => void events.emit(toolExecutedEvent(ctx.jobId, name, ms, result)),
    ...(data.approval ? { decision: data.approval.decision === "approve" ? { type: "approve" as const } : { type: "reject" as const, message: data.approval.message ?? "Denied." } } : {}),
    middleware: {
      modelCallLimit: ctx.config.env.AGENT_MODEL_CALL_LIMIT,
      drainFollowUps: async (threadId) => {
        const items = await ctx.followUps.drain(threadId);
        // Someone else's message joins the run: from now on it is not one person's, so not one person's token.
        const mine = gh.prAuthor?.login.toLowerCase();
        if (mine && items.some((i) => i.author.toLowerCase() !== mine)) delete gh.prAuthor;
        return items.map((i) => `Follow-up from @${i.author} (${i.source}): ${i.text}`);
      },
      threadId: data.threadId,
      startPriority: { started, yieldToStarting: () => runtime.startPriority.yieldToStarting(ctx.signal) },
      // Side-effecting tool results are remembered per tool call: a step re-run after a crash returns them.
      idempotency: { redis: ctx.redis, prefix: `${ctx.prefix}:toolcalls`, tools: RUN_SIDE_EFFECT_TOOLS, fence: ctx.fence },
      replyTools: RUN_REPLY_TOOLS,
      notifyStepLimit: async (text) => void (await postRunComment(gh, text)),
      // The first model call puts 👀 on the request, once per run (resumes included), without waiting for it.
      onStatus: (status) => {
        if (status.kind === "thinking") {
          clock.lap("agent");
          // Its failure aborts the run (the handler in `ready`), so nothing is left unhandled here.
          void ready();
        }
        // The source's own indicator (Slack's assistant status); the intake already acknowledged.
        if (channel) return channel.client.status?.(channel.origin.ref, status);
        if (status.kind !== "thinking" || !gh.target || acked) return;
        const target = gh.target;
        // Asked once per execution (not a lock check and a claim at every model call); claimed before the
        // request is sent: a worker killed while it is in flight must not make the resumed run react a second time.
        acked = true;
        void effects
          .claim(`${ctx.jobId}:ack`)
          .then((first) => (first ? reactToRequest(octokit, target, "eyes") : undefined))
          .catch((err: unknown) => ctx.log.warn({ err: String(err) }, "could not react to the request"));
      },
      ...(runModel.fallback ? { fallbackModel: runModel.fallback } : {}),
      ...(runModel.fallbackModelId ? { fallbackModelId: runModel.fallbackModelId } : {}),
      ...inputs.budget,
      logger: ctx.log,
    },
    agents: inputs.agents,
    checkpointer: runtime.checkpointer,
    threadId: data.threadId,
    prompt: { repo: `${data.owner}/${data.repo}`, defaultBranch: ws.defaultBranch },
    promptParts,
    message: inputs.message,
    execTimeoutMs: ctx.config.sandbox.execTimeoutMs,
    signal: AbortSignal.any([ctx.signal, setupAborted.signal, AbortSignal.timeout(ctx.config.env.AGENT_TIMEOUT_MINUTES * 60_000)]),
    // A job that already started once (its worker died) picks up from the last checkpoint.
    resumeIfPending: async () => {
      const started = await effects.once(startedKey, async () => startedAt.toISOString());
      if (started.replayed) gh.resumedSince = started.value;
      return started.replayed;
    },
    // Resumed in a new sandbox (the old one stayed with the dead worker): the model is told what was lost.
    ...(ws.workspaceLost ? { resumeNote: lostWorkspaceResumeNote({ branch: ws.branch, baseBranch: ws.baseBranch, pushedSha: pushedAtStart }) } : {}),
  }).finally(() => mcp.close());
  ctx.log.info({ resumed, model: runModel.settings.modelId, source: runModel.settings.source, error: error ? String(error) : undefined }, "agent run finished");
  // Lost the job's lock mid-run: the execution that has the job now records and answers for the run.
  if (ctx.lockLost()) throw new LockLostError(ctx.jobId);
  // A workspace that could not be put in place fails the run as it did before the agent started.
  if (readying) await readying.catch(setupFailed);
  const record = buildRunRecord({
    threadId: data.threadId,
    trigger: data.trigger,
    settings: runModel.settings,
    messages,
    subagent: meter,
    startedAt,
    finishedAt: new Date(),
    replyTools: RUN_REPLY_TOOLS,
    ...(error !== undefined ? { error } : {}),
  });
  // Stop from the dashboard aborts the run through its signal: not a failure, and never retried.
  const stopped = error !== undefined && ctx.signal.aborted && ctx.signal.reason === STOP_REASON;
  if (stopped) {
    record.outcome = "stopped";
    delete record.error;
  }
  // Stop ends the work: the thread's pending follow-ups go with the run (no continuation redoes it).
  const stop = stopped ? await recordStoppedWork(ctx, data.threadId) : null;
  if (gh.state.prUrl) record.prUrl = gh.state.prUrl;
  if (gh.state.pushedSha) record.pushedSha = gh.state.pushedSha;
  if (gh.state.testNote) record.testNote = gh.state.testNote.slice(0, 1000);
  if (gated.gate) record.autofixGate = gated.gate;
  if (interrupt && error === undefined) {
    // Paused, not finished: the run that resumes after the decision records and sums up the whole run.
    const approvalChannel = gh.target ? { github: gh.target } : channel ? sourceApprovalChannel(channel) : null;
    if (!approvalChannel) throw new UnrecoverableError("a paused run has nowhere to ask for approval");
    await ctx.fence();
    const approval = await requestApproval(ctx, octokit, data, approvalChannel, interrupt);
    return { ...record, outcome: "awaiting_approval", approvalId: approval.id } as RunRecord;
  }
  await new RunRecords(ctx.redis, ctx.prefix).save(ctx.jobId, record);
  await events.emit({
    type: "run.completed",
    runId: ctx.jobId,
    threadId: data.threadId,
    trigger: data.trigger,
    model: record.modelId,
    status: record.outcome,
    inputTokens: record.inputTokens,
    outputTokens: record.outputTokens,
    cachedTokens: record.cachedTokens,
    costUsd: record.costUsd ?? null,
    durationMs: record.durationMs,
    toolCounts: record.toolCounts,
    subagents: record.toolCounts["task"] ?? 0,
    provider: runModel.settings.provider,
    mode: runMode(data),
    ...completionFacts(data.text, messages),
    branches: { head: ws.branch, base: ws.baseBranch },
  });
  const lastAttempt = stopped || ctx.attempt >= ctx.config.env.JOB_ATTEMPTS || error instanceof UnrecoverableError;
  // A transient failure is retried (and resumes); only the final attempt tells the user it failed.
  if (error !== undefined && !lastAttempt) throw error;
  const notes = [
    ...(runModel.settings.source === "replay" ? ["_This run was replayed from a recording; no model was called._"] : []),
    ...(ws.workspaceLost && !resumed ? [lostWorkspaceReplyNote(ws.lostReason)] : []),
    ...(stop ? [stoppedWorkNote(stop)] : []),
    ...optional(mcpFailureNote(mcp.failures) ?? undefined),
    ...(inputs.note ? [inputs.note] : []),
  ];
  // A run resumed in a new sandbox: its reply leads with what it actually pushed, whatever the model wrote.
  const facts = ws.workspaceLost && resumed ? [resumedRunFacts({ branch: ws.branch, pushedAtStart, pushedAtEnd: gh.state.pushedSha, prUrl: gh.state.prUrl })] : [];
  await ctx.fence();
  await finishRun(gh, record, notes, facts, error !== undefined && !stopped ? failureReason(error, "your request") : undefined);
  if (error !== undefined && !stopped) throw error;
  return record;
}
