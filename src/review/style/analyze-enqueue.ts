import { OpenSweError } from "../../errors.js";
import { jobId } from "../../queue/job-ids.js";
import type { Principal, Via } from "../../queue/job-provenance.js";
import type { QueueSet } from "../../queue/queues.js";
import type { SettingsStore } from "../../store/settings-store.js";

/**
 * Queues a review-style analyzer run for a repository the app is installed on (the installation
 * comes from the installed-repos record). Returns the job id.
 */
export async function enqueueAnalyze(opts: {
  settings: SettingsStore;
  queues: QueueSet;
  repo: string;
  mode: "bootstrap" | "continual";
  by: { via: Via; principal: Principal };
  now?: number;
}): Promise<string> {
  const [owner, name] = opts.repo.split("/");
  if (!owner || !name) throw new OpenSweError("invalid_repo", `expected owner/repo, got "${opts.repo}"`);
  const installed = (await opts.settings.listInstalled())[opts.repo.toLowerCase()];
  if (!installed) throw new OpenSweError("not_installed", `the app is not installed on ${opts.repo} (open-swe settings installed list)`);
  return opts.queues.add("analyze", { installationId: installed.installationId, owner, repo: name, mode: opts.mode }, jobId("analyze", owner, name, opts.mode, opts.now ?? Date.now()), opts.by);
}
