import { createHash } from "node:crypto";
import { errorMessage } from "../errors.js";
import { jobId } from "../queue/job-ids.js";
import type { CiEventJob } from "../queue/schemas.js";
import type { QueueSet } from "../queue/queues.js";
import { prRef } from "../shared/thread-id.js";
import type { WatchedPr } from "../store/pr-threads.js";
import type { JobContext } from "../threads/job-context.js";
import { AutofixLedger } from "./autofix-ledger.js";
import { readCiState } from "./ci-state.js";
import { ciFingerprint, conflictFingerprint } from "./decide.js";

export const CI_MONITOR_SCHEDULER = "ci-monitor-sweep";

/** Registers (or updates) the repeating sweep; a worker process calls it once at start. */
export async function scheduleCiMonitor(queues: QueueSet, everySeconds: number): Promise<void> {
  await queues.schedule("ci-monitor", CI_MONITOR_SCHEDULER, { every: everySeconds * 1000 }, { name: "sweep", data: { reason: "scheduled" }, opts: { attempts: 1 } }, "system:ci-monitor");
}

export interface CiMonitorResult {
  looked: number;
  enqueued: number;
  deduped: number;
  closed: number;
  errors: number;
  /** The `ci-event` jobs it enqueued. */
  jobs: string[];
}

type Found = { kind: "ci" | "conflict"; fingerprint: string; event: CiEventJob } | null;

/** What one of our PRs needs: a conflict first (CI on a conflicted head is moot), else its red checks. */
async function inspect(ctx: JobContext, w: WatchedPr, ledger: AutofixLedger, closed: () => Promise<void>): Promise<Found> {
  const octokit = await ctx.github.installation(w.installationId);
  const repo = { owner: w.owner, repo: w.repo };
  const { data: pr } = await octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", { ...repo, pull_number: w.number });
  if (pr.state !== "open") {
    await closed();
    return null;
  }
  const base = { ...repo, installationId: w.installationId, headSha: pr.head.sha, headBranch: pr.head.ref, prNumbers: [w.number], detailsUrl: null };
  if (pr.mergeable_state === "dirty") {
    const fingerprint = conflictFingerprint(pr.head.sha, pr.base.sha);
    return { kind: "conflict", fingerprint, event: { ...base, kind: "merge_conflict", name: "merge conflict", conclusion: "dirty", deliveryId: "" } };
  }
  const state = await readCiState(octokit, repo, pr.head.sha, ctx.config.env.APP_SLUG);
  if (state.failing.length === 0) return null;
  const fingerprint = ciFingerprint(
    pr.head.sha,
    state.failing.map((f) => f.name),
  );
  return { kind: "ci", fingerprint, event: { ...base, kind: "check_run", name: state.failing[0]!.name, conclusion: "failure", deliveryId: "" } };
}

/**
 * The `ci-monitor` sweep: our open PRs (PrThreads' watch list) with red checks the webhooks missed, or in
 * conflict with their base, become `ci-event` jobs and go through the same decision. A failure already
 * handled (same fingerprint, whoever reported it) is not enqueued again.
 */
export async function sweepCiMonitor(ctx: JobContext): Promise<CiMonitorResult> {
  const ledger = new AutofixLedger(ctx.redis, ctx.prefix);
  const result: CiMonitorResult = { looked: 0, enqueued: 0, deduped: 0, closed: 0, errors: 0, jobs: [] };
  for (const w of await ctx.prThreads.watched()) {
    if (!(await ctx.settings.isRepoEnabled(`${w.owner}/${w.repo}`))) continue;
    result.looked += 1;
    const ref = prRef(w.owner, w.repo, w.number);
    try {
      const found = await inspect(ctx, w, ledger, async () => {
        await ctx.prThreads.unwatch(w);
        result.closed += 1;
      });
      if (!found) continue;
      if ((await ledger.handled(ref)).includes(found.fingerprint)) {
        result.deduped += 1;
        continue;
      }
      const id = jobId("ci-monitor", ref.replace(/[/#]/g, "_"), createHash("sha256").update(found.fingerprint).digest("hex").slice(0, 16));
      await ctx.queues.add("ci-event", { ...found.event, deliveryId: id }, id, { via: "system:ci-monitor" });
      result.enqueued += 1;
      result.jobs.push(id);
      ctx.log.info({ pr: ref, kind: found.kind, fingerprint: found.fingerprint }, "CI monitor: enqueued");
    } catch (err) {
      result.errors += 1;
      ctx.log.warn({ pr: ref, err: errorMessage(err) }, "CI monitor: could not look at the pull request");
    }
  }
  return result;
}
