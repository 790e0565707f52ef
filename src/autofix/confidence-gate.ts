import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import type { Octokit } from "../github/app-auth.js";
import { replyTo } from "../github/reply.js";
import { errorMessage } from "../errors.js";
import type { Logger } from "../logger.js";
import { buildRunRecord } from "../agent/run-record.js";
import { GateResult, type RunRecord } from "../shared/run-record.js";
import type { AgentJob } from "../queue/schemas.js";
import type { ModelSettings } from "../agent/model/resolve-model-settings.js";
import { RunRecords } from "../store/run-records.js";
import type { JobContext } from "../threads/job-context.js";
import type { SideEffectLedger } from "../store/side-effects.js";
import { prRef } from "../shared/thread-id.js";
import { AutofixLedger } from "./autofix-ledger.js";
import { readCiState } from "./ci-state.js";
import { CLASSIFIER_PROMPT, parseClassification } from "./classify-failure.js";

/** Re-runs of a flaky head's failed jobs before a human is needed. */
export const MAX_RERUNS_PER_HEAD = 3;

export interface GateDeps {
  data: AgentJob & { autofixHead: string; number: number };
  octokit: Octokit;
  model: BaseChatModel;
  ledger: AutofixLedger;
  /** The run's side-effect ledger: a retried job does not classify, re-run or comment twice. */
  effects: SideEffectLedger;
  jobId: string;
  ownSlug: string;
  log: Logger;
  signal: AbortSignal;
  /** The job's last attempt: a model call that fails then fails closed; before it, the job is retried. */
  lastAttempt: boolean;
}

const quiet = (s: string) => s.replace(/@/g, "@\u200b");
const fence = (s: string) => "```\n" + s.replace(/```/g, "ʼʼʼ") + "\n```";

async function classify(d: GateDeps): Promise<{ result: GateResult; messages: BaseMessage[] }> {
  const human = new HumanMessage(d.data.text);
  let answer: AIMessage;
  try {
    answer = (await d.model.invoke([new SystemMessage(CLASSIFIER_PROMPT), human], { signal: d.signal })) as AIMessage;
  } catch (err) {
    // The provider's trouble, not the pull request's: retried with the job; on its last attempt, said as such.
    if (!d.lastAttempt) throw err;
    d.log.warn({ err: errorMessage(err) }, "CI autofix: the classifying model call failed on the job's last attempt");
    const why = "the model that classifies CI failures could not be reached (an error on the model provider's side, not in this pull request)";
    return { result: { classification: "no_change", reason: why, evidence: "", malformed: why }, messages: [human] };
  }
  const text = typeof answer.content === "string" ? answer.content : answer.content.map((p) => ("text" in p && typeof p.text === "string" ? p.text : "")).join("");
  const parsed = parseClassification(text);
  if (!parsed.ok) return { result: { classification: "no_change", reason: `the classifier's answer was unusable: ${parsed.error}`, evidence: "", malformed: parsed.error }, messages: [human, answer] };
  return { result: parsed.value, messages: [human, answer] };
}

/** The failed jobs' workflow runs (GitHub Actions checks only; a check run id is the Actions job id). */
async function failedRuns(d: GateDeps): Promise<number[]> {
  const repo = { owner: d.data.owner, repo: d.data.repo };
  const { failing } = await readCiState(d.octokit, repo, d.data.autofixHead, d.ownSlug);
  const runs = new Set<number>();
  for (const c of failing) {
    if (c.checkRunId === null) continue;
    try {
      const { data: job } = await d.octokit.request("GET /repos/{owner}/{repo}/actions/jobs/{job_id}", { ...repo, job_id: c.checkRunId });
      runs.add(Number(job.run_id));
    } catch (err) {
      d.log.info({ check: c.name, err: errorMessage(err) }, "CI autofix: failing check is not an Actions job; it cannot be re-run");
    }
  }
  return [...runs];
}

async function rerun(d: GateDeps, result: GateResult): Promise<GateResult> {
  const ref = prRef(d.data.owner, d.data.repo, d.data.number);
  const n = await d.ledger.claimRerun(ref, d.data.autofixHead, MAX_RERUNS_PER_HEAD);
  if (n === null)
    return {
      ...result,
      classification: "no_change",
      reason: `it looks flaky (${result.reason}), but the failed jobs were already re-run ${MAX_RERUNS_PER_HEAD} times on this commit; a human is needed`,
    };
  const runs = await failedRuns(d);
  if (runs.length === 0) {
    await d.ledger.unclaimRerun(ref, d.data.autofixHead);
    return {
      ...result,
      classification: "no_change",
      reason: `it looks flaky (${result.reason}), but none of the failing checks is a GitHub Actions job that can be re-run from here; re-run them by hand`,
    };
  }
  for (const [i, id] of runs.entries()) {
    try {
      await d.octokit.request("POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs", { owner: d.data.owner, repo: d.data.repo, run_id: id });
    } catch (err) {
      // Re-running needs the Actions write permission; an installation that has not accepted it answers 403.
      if ((err as { status?: number }).status !== 403) throw err;
      d.log.warn({ runId: id, err: errorMessage(err) }, "CI autofix: GitHub refused the re-run (403): the installation lacks the Actions write permission");
      if (i === 0) await d.ledger.unclaimRerun(ref, d.data.autofixHead);
      return {
        ...result,
        classification: "no_change",
        reason: `it looks flaky (${result.reason}), but GitHub refused to re-run the failed jobs: this installation has not granted the app the Actions write permission (an owner can accept it in the installation's settings); re-run them by hand`,
      };
    }
  }
  // A re-run is not a fix attempt: the next red on this head is judged afresh.
  await d.ledger.refundHead(ref, d.data.autofixHead);
  return { ...result, rerunRuns: runs, rerun: n };
}

/**
 * Before a CI fix run touches code: one model call classifies the failure from its log tails. `fix` → the
 * run goes on; `flaky` → only the failed jobs are re-run (at most 3 times per head); `no_change` (or an
 * unusable answer, failing closed) → one comment saying why. Each step runs once per job, retries included.
 */
export async function confidenceGate(d: GateDeps): Promise<{ result: GateResult; messages: BaseMessage[] }> {
  let messages: BaseMessage[] = [];
  const classified = await d.effects.once(`${d.jobId}:autofix-gate`, async () => {
    const c = await classify(d);
    messages = c.messages;
    return c.result;
  });
  let result = GateResult.parse(classified.value);
  if (result.classification === "flaky") result = GateResult.parse((await d.effects.once(`${d.jobId}:autofix-rerun`, () => rerun(d, result))).value);
  if (result.classification === "no_change") {
    const body = [
      `CI autofix: I looked at the failing checks and changed nothing, because ${quiet(result.reason)}.`,
      ...(result.malformed ? ["", "(The failure could not be classified, so nothing was changed; a human should look.)"] : []),
      ...(result.evidence ? ["", "Evidence from the logs:", fence(result.evidence)] : []),
      "",
      "`@open-swe fix ci` asks for a fix run anyway.",
    ].join("\n");
    await d.effects.once(`${d.jobId}:autofix-gate-comment`, () => replyTo(d.octokit, { owner: d.data.owner, repo: d.data.repo, number: d.data.number, comment: d.data.comment }, body));
  }
  d.log.info({ classification: result.classification, reason: result.reason, malformed: result.malformed, rerunRuns: result.rerunRuns }, `CI autofix: confidence gate says ${result.classification}`);
  return { result, messages };
}

/**
 * The gate as a run sees it: only an automatic CI fix run is gated (a writer's `fix ci` asked for a fix).
 * `record` set: the run ends here (re-run or no change), its record saved; else `gate` goes in the record.
 */
export async function gateCiFix(
  data: AgentJob,
  ctx: JobContext,
  octokit: Octokit,
  effects: SideEffectLedger,
  runModel: { model: BaseChatModel; settings: ModelSettings },
): Promise<{ gate?: GateResult; record?: RunRecord }> {
  if (data.trigger !== "ci_fix" || !data.autofixHead || data.comment || data.number === undefined) return {};
  const startedAt = new Date();
  const { result, messages } = await confidenceGate({
    data: { ...data, autofixHead: data.autofixHead, number: data.number },
    octokit,
    model: runModel.model,
    ledger: new AutofixLedger(ctx.redis, ctx.prefix),
    effects,
    jobId: ctx.jobId,
    ownSlug: ctx.config.env.APP_SLUG,
    log: ctx.log,
    signal: ctx.signal,
    lastAttempt: ctx.attempt >= ctx.config.env.JOB_ATTEMPTS,
  });
  if (result.classification === "fix") return { gate: result };
  const record = buildRunRecord({ threadId: data.threadId, trigger: data.trigger, settings: runModel.settings, messages, startedAt, finishedAt: new Date() });
  record.outcome = "completed";
  record.autofixGate = result;
  await new RunRecords(ctx.redis, ctx.prefix).save(ctx.jobId, record);
  return { gate: result, record };
}
