import { join } from "node:path";
import { UnrecoverableError } from "bullmq";
import { DEFAULT_PROMPTS_DIR, loadPrompts, renderTemplate } from "../agent/prompts.js";
import { loadRepoConfig, RepoConfigError } from "../config/repo-config.js";
import { OpenSweError } from "../errors.js";
import type { QueueSet } from "../queue/queues.js";
import { AnalyzeJob } from "../queue/schemas.js";
import { collectReviewSamples } from "../review/style/review-samples.js";
import { collectFindingOutcomes, runStyleAnalyzer, type AnalyzerMode } from "../review/style/run-style-analyzer.js";
import { Profile } from "../store/settings-store.js";
import type { JobContext, JobOutcome } from "../threads/job-context.js";
import { resolveRunModel } from "./resolve-run-model.js";
import { reviewStores, storeRepo } from "../review/review-stores.js";

/** Every night at 03:00 (the scheduler's time zone, UTC by default). */
export const NIGHTLY_PATTERN = "0 3 * * *";

const SKILLS: Record<AnalyzerMode, string> = { bootstrap: "bootstrap-review-style", continual: "continual-review-style" };

/** The per-repo job scheduler id of the nightly continual analyzer. */
export function analyzeSchedulerId(owner: string, repo: string): string {
  return `analyze__${owner.toLowerCase()}__${repo.toLowerCase()}`;
}

/** The mode's procedure, a skill under `prompts/skills/`, used as the analyzer's system prompt. */
export function analyzerSkill(mode: AnalyzerMode, repo: string, promptsDir: string = DEFAULT_PROMPTS_DIR): string {
  const name = SKILLS[mode];
  const template = loadPrompts(join(promptsDir, "skills")).get(name);
  if (template === undefined) throw new OpenSweError("prompt_missing", `no skill named skills/${name}.md`);
  return renderTemplate(template, { repo }, `skills/${name}`);
}

/** Registers (or refreshes) the repo's nightly continual run. */
export async function scheduleNightlyAnalyzer(queues: QueueSet, job: Omit<AnalyzeJob, "mode">): Promise<string> {
  const id = analyzeSchedulerId(job.owner, job.repo);
  const data = AnalyzeJob.parse({ ...job, mode: "continual" });
  await queues.schedule("analyze", id, { pattern: NIGHTLY_PATTERN }, { name: "continual", data, opts: { attempts: 1 } }, "system:nightly-analyze");
  return id;
}

/**
 * One analyzer run. bootstrap: sample the repo's human review comments and distil a style, then
 * register the nightly continual run; continual: refine the style from our findings' outcomes.
 */
export async function analyzeReviewStyle(data: AnalyzeJob, ctx: JobContext): Promise<JobOutcome> {
  const { owner, repo } = storeRepo(data.owner, data.repo);
  const { mode } = data;
  let installationId = data.installationId;
  if (mode === "continual") {
    // A nightly run follows the repo's current installation, and ends itself once the app is gone.
    const installed = (await ctx.settings.listInstalled())[`${owner}/${repo}`];
    if (!installed) {
      await ctx.queues.queues.analyze.removeJobScheduler(analyzeSchedulerId(owner, repo));
      return { outcome: "not_installed", mode };
    }
    installationId = installed.installationId;
  }
  const octokit = await ctx.github.installation(installationId);
  const stores = reviewStores(ctx.redis, ctx.prefix);
  let repoConfig;
  try {
    repoConfig = await loadRepoConfig(octokit, owner, repo);
  } catch (err) {
    if (err instanceof RepoConfigError) throw new UnrecoverableError(`${err.message}\n${err.details}`);
    throw err;
  }
  const input =
    mode === "bootstrap"
      ? { samples: await collectReviewSamples(octokit, { owner, repo }, ctx.config.botLogins) }
      : { outcomes: await collectFindingOutcomes({ octokit, store: stores.findings, owner, repo }) };
  const evidence = input.samples?.length ?? input.outcomes?.length ?? 0;

  let version: number | null = null;
  if (evidence > 0) {
    let model;
    try {
      model = (await resolveRunModel({ role: "reviewer", profile: Profile.parse({}), team: await ctx.settings.getTeamModels(), repoConfig, config: ctx.config.model })).model;
    } catch (err) {
      if (err instanceof OpenSweError) throw new UnrecoverableError(`cannot learn the review style of ${owner}/${repo}: ${err.message}`);
      throw err;
    }
    const saved = await runStyleAnalyzer({ mode, model, repo: { owner, repo }, instructions: analyzerSkill(mode, `${owner}/${repo}`), styleStore: stores.styles, ...input, signal: ctx.signal });
    version = saved?.version ?? null;
  }
  ctx.log.info({ mode, evidence, version }, "review style analyzed");
  const scheduler = mode === "bootstrap" ? await scheduleNightlyAnalyzer(ctx.queues, { installationId, owner, repo }) : undefined;
  return { outcome: version !== null ? "saved" : evidence === 0 ? "no_evidence" : "not_saved", mode, evidence, version, ...(scheduler ? { scheduler } : {}) };
}
