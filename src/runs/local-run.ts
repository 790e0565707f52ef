import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { runBudget } from "../agent/budget.js";
import { buildRunRecord, formatRunSummary } from "../agent/run-record.js";
import { createFetchUrlTool } from "../agent/tools/fetch-url-tool.js";
import { createHttpRequestTool } from "../agent/tools/http-request-tool.js";
import type { AppConfig } from "../config/env.js";
import { parseRepoConfig } from "../config/repo-config.js";
import { createSandboxProvider } from "../sandbox/registry.js";
import { hostGit } from "../sandbox/workspace/host-git.js";
import { ensureMirror } from "../sandbox/workspace/mirror.js";
import { prepareWorkspace } from "../sandbox/workspace/prepare-workspace.js";
import type { RunState } from "../github/tools/run-context.js";
import { agentBranchName } from "./branch-name.js";
import { commitAndPushTool, commitCaps } from "./commit-and-push-tool.js";
import { invokeAgent } from "./invoke-agent.js";
import type { LocalRunTarget } from "./local-run-target.js";
import { replayScriptFromMessages } from "../agent/model/replay-script-from-messages.js";
import { resolveRunModel } from "./resolve-run-model.js";
import { agentFileLimits, loadRunAgents } from "./load-run-agents.js";
import { readContextAttachments } from "./context-attachments.js";
import type { Redis } from "ioredis";
import { jobId } from "../queue/job-ids.js";
import { RunIndex } from "../store/run-index.js";
import { RunRecords } from "../store/run-records.js";

export interface LocalRunOptions {
  config: AppConfig;
  /** A path to a git working copy, or `owner/name` fetched through GIT_REMOTE_TEMPLATE. */
  repo: string;
  task: string;
  model?: string;
  /** Print each tool's full output instead of its first line. */
  verbose?: boolean;
  /** Repository paths attached to the request (`--context`), read from the mirror at the run's commit. */
  context?: string[];
  /** Write the run's model turns here as a replay script (`--model replay:<file>` plays it back). */
  record?: string;
  /** Where the run is recorded (`runs ls`, the run index, source `local`): the CLI's Redis, opened once the request is known to be valid. */
  runs?: () => Promise<{ redis: Redis; prefix: string }>;
  out: (text: string) => void;
}

const oneLine = (s: string, max: number) => {
  const line = s.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/**
 * `open-swe run`: the same agent outside GitHub — a local sandbox over the repo's committed state; the
 * result is a branch in the working copy (or in the mirror for `owner/name`), printed with its diff. Its target
 * is what `checkLocalRun` accepted (the CLI checks the request before loading this module).
 */
export async function runLocal(o: LocalRunOptions, { isPath, source }: LocalRunTarget): Promise<number> {
  const name = isPath ? `local/${basename(source).replace(/[^A-Za-z0-9_.-]/g, "-")}` : o.repo;
  const mirror = await ensureMirror({ mirrorRoot: o.config.sandbox.mirrorRoot, repo: name, remoteUrl: source });
  const current = isPath ? (await hostGit(["-C", source, "rev-parse", "--abbrev-ref", "HEAD"])).trim() : "HEAD";
  const ref = current === "HEAD" ? "HEAD" : `refs/heads/${current}`;
  if (isPath && (await hostGit(["-C", source, "status", "--porcelain"])).trim() !== "") {
    const head = (await hostGit(["-C", source, "rev-parse", "--short", "HEAD"])).trim();
    o.out(`uncommitted changes in ${o.repo} are not seen by the agent: it works on the last commit, ${head} (${current})\n`);
  }
  const threadId = randomUUID();
  const branch = agentBranchName(threadId, o.task);
  // Every run is recorded: listed from its start, its record saved at its end.
  const runId = jobId("local", threadId);
  const runs = o.runs ? await o.runs() : null;
  const index = runs ? new RunIndex(runs.redis, runs.prefix) : null;
  const queuedAt = Date.now();
  await index?.put({
    runId,
    repo: name,
    threadId,
    trigger: "local",
    source: "local",
    requester: "local",
    title: o.task.split("\n")[0]!.slice(0, 200),
    request: o.task.slice(0, 20_000),
    status: "running",
    queuedAt,
    startedAt: queuedAt,
  });
  // A replay file is a deployment default (it forces the replay provider), not a chosen model.
  const replay = o.model?.startsWith("replay:") ? o.model : undefined;
  const runModel = await resolveRunModel({
    role: "agent",
    profile: { autoFixCi: false, autoReview: true, prsAsMe: false },
    team: {},
    repoConfig: parseRepoConfig({}),
    config: replay ? { ...o.config.model, model: replay } : o.config.model,
    ...(o.model && !replay ? { thread: { modelId: o.model } } : {}),
  });
  const provider = createSandboxProvider({ ...o.config.sandbox, type: "local" });
  const sandbox = await provider.create({ network: true, labels: { run: "local", repo: name } });
  try {
    const ws = await prepareWorkspace({ sandbox, mirrorRoot: o.config.sandbox.mirrorRoot, mirror, ref, branch, publicUrl: isPath ? source : `https://github.com/${o.repo}.git` });
    const state: RunState = { replied: false };
    let expectedOld = ws.sha;
    const target = isPath ? source : mirror;
    const tools = [
      commitAndPushTool(
        { branch, requester: { login: "local", id: 0 }, state },
        {
          sandbox,
          mirror,
          remoteUrl: target,
          expectedOld: () => expectedOld,
          onPushed: async (sha) => void (expectedOld = sha),
          allowWorkflowChanges: true,
          maxBundleBytes: o.config.sandbox.maxBundleBytes,
          caps: commitCaps(o.config),
        },
      ),
      tool(
        async ({ body }) => {
          state.replied = true;
          o.out(`\n── agent ──\n${body}\n`);
          return "Shown to the user.";
        },
        { name: "reply_to_user", description: "Reply to the user who asked (shown in their terminal).", schema: z.object({ body: z.string().min(1) }) },
      ),
      createHttpRequestTool(),
      createFetchUrlTool(),
    ] as StructuredToolInterface[];
    // The repository's agents at the commit the run works on, read from the host mirror.
    const agents = await loadRunAgents({
      mirror,
      commit: ws.sha,
      runTools: tools.map((t) => t.name),
      limits: agentFileLimits(o.config),
      ...(runModel.settings.provider === "replay"
        ? {}
        : {
            makeModel: async (modelId: string) =>
              (
                await resolveRunModel({
                  role: "agent",
                  profile: { autoFixCi: false, autoReview: true, prsAsMe: false },
                  team: {},
                  repoConfig: parseRepoConfig({}),
                  config: o.config.model,
                  thread: { modelId },
                })
              ).model,
          }),
      log: { warn: (meta: { file?: string; reason?: string }) => o.out(`agent file skipped: ${meta.file ?? "?"}: ${meta.reason ?? ""}\n`) },
    });
    const startedAt = new Date();
    let calls = 0;
    const request = [
      `Local request on ${name}:`,
      "<request>",
      o.task,
      "</request>",
      `This is a local run: there is no pull request. Save your work with \`commit_and_push\` (it lands on branch \`${branch}\` in the user's repository) and answer with \`reply_to_user\`.`,
    ].join("\n");
    const attached = o.context?.length ? await readContextAttachments(mirror, ws.sha, o.context) : [];
    const message = new HumanMessage(attached.length > 0 ? { content: [{ type: "text", text: request }, ...attached.map((text) => ({ type: "text", text }))] } : request);
    const result = await invokeAgent({
      model: runModel.model,
      sandbox,
      tools,
      middleware: {
        modelCallLimit: o.config.env.AGENT_MODEL_CALL_LIMIT,
        drainFollowUps: async () => [],
        threadId,
        notifyStepLimit: async (text) => o.out(`\n${text}\n`),
        replyTools: ["reply_to_user"],
        ...(runModel.fallback ? { fallbackModel: runModel.fallback } : {}),
        ...runBudget(runModel.settings.modelId, { usd: [o.config.env.AGENT_MAX_BUDGET_USD], tokens: [o.config.env.AGENT_MAX_BUDGET_TOKENS] }),
      },
      agents: { resolved: agents.agents, models: agents.models, runModelId: runModel.settings.modelId, skills: agents.skills },
      checkpointer: new MemorySaver(),
      threadId,
      prompt: { repo: name, defaultBranch: current },
      message,
      execTimeoutMs: o.config.sandbox.execTimeoutMs,
      signal: AbortSignal.timeout(o.config.env.AGENT_TIMEOUT_MINUTES * 60_000),
      onProgress: (e) => {
        if (e.kind === "model") o.out(`· model call ${(calls += 1)}\n`);
        else if (e.kind === "tool") o.out(`· ${e.name} ${oneLine(e.input, 120)}\n`);
        else o.out(o.verbose ? `  ↳ ${e.output.replace(/\n/g, "\n    ")}\n` : `  ↳ ${oneLine(e.output, 120)}\n`);
      },
    });
    const transcript = join(o.config.dataDir, "transcripts", `${threadId}.json`);
    await mkdir(dirname(transcript), { recursive: true });
    await writeFile(
      transcript,
      JSON.stringify(
        result.messages.map((m) => ({ type: m.getType(), content: m.content, ...("tool_calls" in m && m.tool_calls ? { tool_calls: m.tool_calls } : {}) })),
        null,
        2,
      ),
      { mode: 0o600 },
    );
    const record = buildRunRecord({
      threadId,
      trigger: "local",
      settings: runModel.settings,
      messages: result.messages,
      subagent: result.meter,
      startedAt,
      finishedAt: new Date(),
      ...(result.error !== undefined ? { error: result.error } : {}),
    });
    if (runs) {
      await new RunRecords(runs.redis, runs.prefix).save(runId, record);
      await index!.update(runId, { status: record.outcome, finishedAt: Date.now() });
    }
    const pushed = state.pushedSha ?? "";
    if (pushed) {
      o.out(`branch: ${branch} (in ${target})\n`);
      o.out(await hostGit(["-C", mirror, "diff", "--stat", "--patch", ws.sha, pushed]));
    } else {
      o.out("no changes were committed\n");
    }
    if (o.record) {
      await writeFile(o.record, `${JSON.stringify(replayScriptFromMessages(result.messages), null, 2)}\n`);
      o.out(`recorded: ${o.record} (play it back with --model replay:${o.record})\n`);
    }
    if (record.outcome === "budget_exceeded")
      o.out(`\nstopped: the next model call would have taken the run past its budget of $${o.config.env.AGENT_MAX_BUDGET_USD}; spent $${(record.costUsd ?? 0).toFixed(4)}\n`);
    o.out(`\n${formatRunSummary(record)}${record.error ? `\nerror: ${record.error}` : ""}\ntranscript: ${transcript}\n${runs ? `run: ${runId} (open-swe runs show ${runId})\n` : ""}`);
    return record.outcome === "failed" ? 1 : 0;
  } catch (err) {
    // A run that threw is still in the list, as failed.
    await index?.update(runId, { status: "failed", finishedAt: Date.now() }).catch(() => undefined);
    throw err;
  } finally {
    await provider.destroy(sandbox.id);
  }
}
