import type { ProbotOctokit } from "probot";
import { fetchReviewThreads, type ReviewThread } from "../review/resolve-threads.js";
import { readCommitChecks } from "../shared/check-runs.js";
import type { Logger } from "pino";
import type { GitHubAuth } from "../shared/github-auth.js";

/** A pull request's health as the run page shows it; each item links to where it is on GitHub. */
export interface PrHealth {
  url: string;
  number: number;
  state: "open" | "draft" | "merged" | "closed";
  /** GitHub's `mergeable_state`, read as: clean, conflict, blocked, behind, unstable, or unknown (still computing). */
  merge: "clean" | "conflict" | "blocked" | "behind" | "unstable" | "unknown";
  failing: { name: string; url: string | null }[];
  pending: { name: string; url: string | null }[];
  passed: number;
  unresolved: { url: string }[];
}

export type PrHealthResult = { ok: true; health: PrHealth } | { ok: false; reason: string };

/** Pure: owner, repo and number of a pull request's web URL (github.com or a GHE host). */
export function prOfUrl(url: string): { owner: string; repo: string; number: number } | null {
  const m = /^https:\/\/[^/]+\/([^/]+)\/([^/]+)\/pull\/(\d+)\/?$/.exec(url);
  return m ? { owner: m[1]!, repo: m[2]!, number: Number(m[3]) } : null;
}

interface PullFacts {
  state: string;
  merged: boolean;
  draft?: boolean;
  mergeable_state: string;
}

interface CheckFacts {
  checkRuns: { name: string; status: string; conclusion: string | null; html_url: string | null }[];
  status: { statuses: { context: string; state: string; target_url: string | null }[] };
}

const FAILED = new Set(["failure", "timed_out", "cancelled", "action_required", "startup_failure", "stale"]);

/** Pure: GitHub's answers about a pull request, its head's checks and its review threads, as its health. */
export function prHealthOf(url: string, number: number, pull: PullFacts, checks: CheckFacts, threads: readonly ReviewThread[]): PrHealth {
  const state = pull.merged ? "merged" : pull.state === "closed" ? "closed" : pull.draft ? "draft" : "open";
  const ms = pull.mergeable_state;
  const merge = ms === "clean" || ms === "has_hooks" ? "clean" : ms === "dirty" ? "conflict" : ms === "blocked" || ms === "behind" || ms === "unstable" ? ms : "unknown";
  const failing: PrHealth["failing"] = [];
  const pending: PrHealth["pending"] = [];
  let passed = 0;
  for (const r of checks.checkRuns) {
    if (r.status !== "completed") pending.push({ name: r.name, url: r.html_url });
    else if (FAILED.has(r.conclusion ?? "")) failing.push({ name: r.name, url: r.html_url });
    else passed++;
  }
  for (const s of checks.status.statuses) {
    if (s.state === "pending") pending.push({ name: s.context, url: s.target_url });
    else if (s.state === "failure" || s.state === "error") failing.push({ name: s.context, url: s.target_url });
    else passed++;
  }
  const unresolved = threads.filter((t) => !t.isResolved).map((t) => ({ url: t.firstCommentId !== null ? `${url}#discussion_r${t.firstCommentId}` : `${url}/files` }));
  return { url, number, state, merge, failing, pending, passed, unresolved };
}

async function readPrHealth(octokit: ProbotOctokit, url: string): Promise<PrHealth> {
  const pr = prOfUrl(url)!;
  const pull = (await octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", { owner: pr.owner, repo: pr.repo, pull_number: pr.number })).data;
  const [checks, threads] = await Promise.all([readCommitChecks(octokit, pr, pull.head.sha), fetchReviewThreads(octokit, { owner: pr.owner, repo: pr.repo, pull_number: pr.number })]);
  return prHealthOf(url, pr.number, { state: pull.state, merged: pull.merged, draft: pull.draft ?? false, mergeable_state: pull.mergeable_state }, checks, threads);
}

/** How long a pull request's health is kept: a page view (and its reloads) costs GitHub nothing within it. */
export const PR_HEALTH_CACHE_MS = 30_000;
const CACHED_PRS = 500;

/**
 * Pull requests' health, asked of GitHub with the app's installation token (four API calls) and kept for
 * PR_HEALTH_CACHE_MS in this process; concurrent views of one PR share one set of calls. A GitHub error
 * is not kept and is said as GitHub's, not the viewer's.
 */
export class PrHealthCache {
  private readonly kept = new Map<string, { at: number; value: Promise<PrHealthResult> }>();

  constructor(private readonly now: () => number = Date.now) {}

  get(deps: { github: GitHubAuth | null; log: Logger }, url: string, installationId: number | undefined): Promise<PrHealthResult> {
    const hit = this.kept.get(url);
    if (hit && this.now() - hit.at < PR_HEALTH_CACHE_MS) return hit.value;
    if (!prOfUrl(url)) return Promise.resolve({ ok: false, reason: "the pull request's address is not one GitHub gives" });
    if (!deps.github || installationId === undefined) return Promise.resolve({ ok: false, reason: "the app has no installation for this repository" });
    const github = deps.github;
    const value = github
      .installation(installationId)
      .then((octokit) => readPrHealth(octokit, url))
      .then(
        (health): PrHealthResult => ({ ok: true, health }),
        (err: unknown): PrHealthResult => {
          this.kept.delete(url);
          deps.log.warn({ url, err: (err as Error).message }, "dashboard: reading the pull request's health failed");
          return { ok: false, reason: "GitHub did not answer about this pull request just now" };
        },
      );
    if (this.kept.size >= CACHED_PRS) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(url, { at: this.now(), value });
    return value;
  }
}
