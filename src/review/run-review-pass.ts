import type { ProbotOctokit } from "probot";
import { z } from "zod";
import type { Logger } from "../logger.js";
import { selectFilesForReview, type UnreviewedFile } from "./budget.js";
import type { CheckOutcome } from "./check-run.js";
import { withSettledCheckRun, type ReviewCheck } from "./review-check.js";
import { buildPullDiff, PullFile } from "./diff.js";
import type { Finding, PullRef, Severity } from "./findings.js";
import { fileLinesKey, type FileLines } from "./reconcile-findings.js";
import { errorMessage } from "../errors.js";
import type { FindingsStore } from "./findings-store.js";
import type { PublishReviewResult } from "./publish.js";
import { applyHumanResolutions, fetchReviewThreads } from "./resolve-threads.js";
import { ReviewSession } from "./review-session.js";

export const PullSummary = z.object({
  state: z.string(),
  draft: z.boolean().optional(),
  user: z.object({ login: z.string() }).nullable(),
  head: z.object({ sha: z.string() }),
});

/** A changed file as the PR files API gives it, with `path` for the budget. */
export type ReviewFile = PullFile & { path: string };

export interface ReviewPassInput {
  octokit: ProbotOctokit;
  pr: PullRef;
  store: FindingsStore;
  verdictAuthorized: boolean;
  botLogins: readonly string[];
  severityFloor: Severity;
  ignoredPaths: readonly string[];
  tokenBudget: number;
  /** The PR as `GET /pulls/{n}` returned it, when the caller already fetched it. */
  pull?: unknown;
  /** Above this many changed files the PR is reported as too large instead of reviewed. */
  maxFiles?: number;
  detailsUrl?: string;
  log?: Logger;
  /** The job's check, opened before any work; without one the pass opens its own. */
  check?: ReviewCheck;
  /**
   * Full texts of `paths` at `sha` (a missing file is left out), where findings' neighbours are read.
   * Best-effort: when it fails, anchoring falls back to line distance.
   */
  readFiles?: (paths: readonly string[], sha: string) => Promise<ReadonlyMap<string, string>>;
  /**
   * Runs the reviewer agent: it files findings and ends by calling `publish_review` (the tools from
   * `createReviewerTools(session)`). Gets the files it should look at, in priority order. Returns
   * `{ incomplete }` when it stopped before finishing (model-call limit, sandbox failure): what it
   * filed is still published, and the check settles neutral with that reason, never success.
   */
  runReviewer: (args: { session: ReviewSession; files: ReviewFile[]; unreviewed: UnreviewedFile[]; headSha: string }) => Promise<void | { incomplete: string }>;
}

export type ReviewPassResult = { status: "skipped"; reason: string } | { status: "published"; headSha: string; publish: PublishReviewResult; unreviewed: UnreviewedFile[]; incomplete?: string };

const DEFAULT_MAX_FILES = 300;
const FALLBACK_SUMMARY = "The reviewer finished without writing a summary; the findings below are what it filed.";

/**
 * One review pass end to end, inside an always-settled "Open SWE Review" check run: load the PR
 * and its findings, choose files within budget, run the reviewer, make sure exactly one review is
 * published, and settle the check with the outcome.
 */
export async function runReviewPass(input: ReviewPassInput): Promise<ReviewPassResult> {
  const { octokit, pr } = input;
  const pull = PullSummary.parse(input.pull ?? (await octokit.rest.pulls.get({ ...pr })).data);
  const headSha = pull.head.sha;
  const target = {
    octokit,
    owner: pr.owner,
    repo: pr.repo,
    headSha,
    ...(input.detailsUrl !== undefined ? { detailsUrl: input.detailsUrl } : {}),
    ...(input.log !== undefined ? { log: input.log } : {}),
  };

  return withSettledCheckRun<ReviewPassResult>(
    target,
    async () => {
      if (pull.state !== "open") return skip("skipped", `the pull request is ${pull.state}`);
      const rawFiles = await octokit.paginate(octokit.rest.pulls.listFiles, { ...pr, per_page: 100 });
      const files: ReviewFile[] = rawFiles.map((f) => {
        const parsed = PullFile.parse(f);
        return { ...parsed, path: parsed.filename };
      });
      const maxFiles = input.maxFiles ?? DEFAULT_MAX_FILES;
      if (files.length > maxFiles) return skip("too_large", `${files.length} changed files is over the limit of ${maxFiles} for one review`);

      const selection = selectFilesForReview(files, { tokenBudget: input.tokenBudget, ignoredPaths: input.ignoredPaths });
      if (selection.reviewed.length === 0) {
        const reason = selection.unreviewed.some((u) => u.code === "over_budget") ? "too_large" : "skipped";
        return skip(reason, `nothing to review: ${selection.unreviewed.map((u) => `${u.path} (${u.reason})`).join(", ") || "no changed files"}`);
      }

      const stored = await input.store.list(pr);
      const previous = stored.some((f) => f.githubCommentId !== undefined) ? applyHumanResolutions(stored, await fetchReviewThreads(octokit, pr), input.botLogins) : stored;
      const fileLines = await loadFileLines(input, files, stored, headSha);
      const session = new ReviewSession({
        octokit,
        pr,
        headSha,
        prAuthor: pull.user?.login ?? "",
        diff: buildPullDiff(files),
        previous,
        store: input.store,
        verdictAuthorized: input.verdictAuthorized,
        botLogins: input.botLogins,
        severityFloor: input.severityFloor,
        unreviewedFiles: selection.unreviewed,
        files: fileLines,
      });

      const ran = await input.runReviewer({ session, files: selection.reviewed, unreviewed: selection.unreviewed, headSha });
      const incomplete = ran ? ran.incomplete : undefined;
      const publish =
        session.published ??
        (await session.publish({ summary: incomplete ? `The review is incomplete: ${incomplete}. The findings below are what it filed before it stopped.` : FALLBACK_SUMMARY, verdict: null }));

      const overBudget = selection.unreviewed.filter((u) => u.code === "over_budget");
      const summary = `${publish.action === "created" ? `Posted a ${publish.event} review with ${publish.commentsPosted} new comment(s).` : "No new findings; the summary was updated."}`;
      if (publish.warnings.length > 0) input.log?.warn({ warnings: publish.warnings }, "review published with steps that failed");
      // New findings meant our approval should go; if GitHub would not dismiss it, a green check would hide that it still stands.
      const outcome: CheckOutcome =
        publish.approvalStillStands !== undefined
          ? {
              conclusion: "neutral",
              reason: "stale_approval",
              summary: `${summary} Our earlier approval (review ${publish.approvalStillStands}) should have been dismissed for the new findings, but GitHub refused or failed: it still stands, and a maintainer should dismiss it.`,
            }
          : incomplete
            ? { conclusion: "neutral", reason: "incomplete", summary: `Incomplete: ${incomplete}. ${summary}` }
            : overBudget.length > 0
              ? {
                  conclusion: "neutral",
                  reason: "budget",
                  summary: `${summary} ${overBudget.length} file(s) were over the review budget and not reviewed: ${overBudget.map((u) => u.path).join(", ")}`,
                }
              : { conclusion: "success", summary };
      return { outcome, result: { status: "published", headSha, publish, unreviewed: selection.unreviewed, ...(incomplete ? { incomplete } : {}) } };
    },
    input.check,
  );
}

/** The head's text of every changed file and of files earlier findings sit in (RIGHT side). */
async function loadFileLines(input: ReviewPassInput, files: readonly ReviewFile[], stored: readonly Finding[], headSha: string): Promise<FileLines> {
  const out = new Map<string, readonly string[]>();
  if (!input.readFiles) return out;
  const paths = [...new Set([...files.filter((f) => f.status !== "removed").map((f) => f.path), ...stored.map((f) => f.path)])];
  try {
    for (const [path, text] of await input.readFiles(paths, headSha)) out.set(fileLinesKey("RIGHT", path), text.split("\n"));
  } catch (err) {
    input.log?.warn({ err: errorMessage(err) }, "could not read the changed files; findings are anchored by distance only");
  }
  return out;
}

function skip(reason: "skipped" | "too_large", why: string): { outcome: CheckOutcome; result: ReviewPassResult } {
  return { outcome: { conclusion: "neutral", reason, summary: why }, result: { status: "skipped", reason: why } };
}
