import type { ProbotOctokit } from "probot";
import { z } from "zod";
import { OpenSweError, errorMessage } from "../errors.js";
import type { UnreviewedFile } from "./budget.js";
import { meetsFloor, type Finding, type PullRef, type Severity } from "./findings.js";
import type { FindingsStore } from "./findings-store.js";
import { findingIdFromBody, renderFindingComment, renderSummary } from "./review-body.js";
import { resolveFindingThreads } from "./resolve-threads.js";
import type { VerdictDecision } from "./verdict-decision.js";

export class PublishReviewError extends OpenSweError<"review_post_failed"> {}

export interface PublishReviewInput extends PullRef {
  octokit: ProbotOctokit;
  headSha: string;
  /** The whole reconciled set for the PR (already saved or not: publish saves it). */
  findings: readonly Finding[];
  summary: string;
  verdict: VerdictDecision;
  unreviewedFiles: readonly UnreviewedFile[];
  severityFloor: Severity;
  store: FindingsStore;
}

export interface PublishReviewResult {
  action: "created" | "updated";
  reviewId: number;
  event: VerdictDecision["event"];
  commentsPosted: number;
  threadsResolved: number;
  dismissedReviewId?: number;
  /** Best-effort steps that failed (dismissal, thread resolution); the review itself was published. */
  warnings: string[];
  /** Our earlier approval that new findings should have dismissed, but GitHub would not: it still stands. */
  approvalStillStands?: number;
}

const ReviewComment = z.object({ id: z.number(), body: z.string() });

/**
 * Publishes one review pass: ONE review with inline comments for findings not yet on GitHub, or,
 * when there is nothing new to say, an edit of our previous summary. Resolves our threads for
 * findings fixed since, and dismisses our stale approval when the decision says so.
 */
export async function publishReview(input: PublishReviewInput): Promise<PublishReviewResult> {
  const { octokit, owner, repo, pull_number, headSha, store, verdict } = input;
  const pr: PullRef = { owner, repo, pull_number };
  const warnings: string[] = [];
  const findings = new Map(input.findings.map((f) => [f.id, { ...f }]));
  const open = [...findings.values()].filter((f) => f.status === "open");
  const toPost = open.filter((f) => f.reviewId === undefined && f.githubCommentId === undefined && meetsFloor(f.severity, input.severityFloor));
  const belowFloor = open.filter((f) => !meetsFloor(f.severity, input.severityFloor)).length;
  await store.replaceAll(pr, [...findings.values()]);

  const state = await store.getState(pr);
  let dismissedReviewId: number | undefined;
  let approvalStillStands: number | undefined;
  if (verdict.dismissReviewId !== undefined) {
    try {
      await octokit.rest.pulls.dismissReview({
        owner,
        repo,
        pull_number,
        review_id: verdict.dismissReviewId,
        message: "New findings since this approval; see the latest Open SWE review.",
        event: "DISMISS",
      });
      dismissedReviewId = verdict.dismissReviewId;
      await store.setState(pr, { approvalReviewId: null });
    } catch (err) {
      warnings.push(`could not dismiss stale approval ${verdict.dismissReviewId}: ${errorMessage(err)}`);
      approvalStillStands = verdict.dismissReviewId;
    }
  }

  const body = renderSummary({
    headSha,
    summary: input.summary,
    findings: [...findings.values()],
    newCount: toPost.length,
    severityFloor: input.severityFloor,
    belowFloor,
    unreviewedFiles: input.unreviewedFiles,
    note: verdict.note,
  });

  let action: PublishReviewResult["action"] = "created";
  let reviewId: number | undefined;
  if (toPost.length === 0 && verdict.event === "COMMENT" && state.summaryReviewId !== undefined) {
    try {
      await octokit.rest.pulls.updateReview({ owner, repo, pull_number, review_id: state.summaryReviewId, body });
      reviewId = state.summaryReviewId;
      action = "updated";
    } catch (err) {
      warnings.push(`could not edit summary review ${state.summaryReviewId}, posting a new one: ${errorMessage(err)}`);
    }
  }

  if (reviewId === undefined) {
    const created = await createReview(input, body, toPost, warnings);
    reviewId = created;
    for (const f of toPost) findings.set(f.id, { ...f, reviewId: created });
    await store.replaceAll(pr, [...findings.values()]);
    await store.setState(pr, { summaryReviewId: created, ...(verdict.event === "APPROVE" ? { approvalReviewId: created } : {}) });
    if (toPost.length > 0) {
      try {
        await recordCommentIds(input, created, findings);
      } catch (err) {
        warnings.push(`could not read back the comment ids of review ${created}: ${errorMessage(err)}`);
      }
    }
  }
  await store.setState(pr, { headSha });

  const resolved = await resolveFindingThreads({ octokit, pr, findings: [...findings.values()], warnings });
  for (const f of resolved) findings.set(f.id, f);
  await store.replaceAll(pr, [...findings.values()]);

  return {
    action,
    reviewId,
    event: action === "updated" ? "COMMENT" : verdict.event,
    commentsPosted: action === "created" ? toPost.length : 0,
    threadsResolved: resolved.length,
    ...(dismissedReviewId !== undefined ? { dismissedReviewId } : {}),
    warnings,
    ...(approvalStillStands !== undefined ? { approvalStillStands } : {}),
  };
}

async function createReview(input: PublishReviewInput, body: string, toPost: readonly Finding[], warnings: string[]): Promise<number> {
  const { octokit, owner, repo, pull_number, headSha, verdict } = input;
  const post = async (reviewBody: string, inline: readonly Finding[]): Promise<number> => {
    const res = await octokit.rest.pulls.createReview({
      owner,
      repo,
      pull_number,
      commit_id: headSha,
      event: verdict.event,
      body: reviewBody,
      comments: inline.map((f) => ({ path: f.path, line: f.line, side: f.side, body: renderFindingComment(f) })),
    });
    return z.object({ id: z.number() }).parse(res.data).id;
  };
  try {
    return await post(body, toPost);
  } catch (err) {
    // 422 with inline comments: usually the head moved and a line left the diff. Say it in the body instead.
    if (statusOf(err) === 422 && toPost.length > 0) {
      warnings.push(`inline comments were rejected (${errorMessage(err)}); findings are listed in the summary instead`);
      try {
        return await post(`${body}\n\n${toPost.map((f) => `- \`${f.path}:${f.line}\` ${renderFindingComment(f)}`).join("\n")}`, []);
      } catch (retryErr) {
        err = retryErr;
      }
    }
    throw new PublishReviewError("review_post_failed", `could not post the review on ${owner}/${repo}#${pull_number}: ${errorMessage(err)}`, { cause: err });
  }
}

function statusOf(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === "number" ? status : undefined;
}

/** Learns the ids GitHub gave our inline comments, by the finding marker each one carries. */
async function recordCommentIds(input: PublishReviewInput, reviewId: number, findings: Map<string, Finding>): Promise<void> {
  const { octokit, owner, repo, pull_number } = input;
  const comments = await octokit.paginate(octokit.rest.pulls.listCommentsForReview, { owner, repo, pull_number, review_id: reviewId, per_page: 100 });
  for (const raw of comments) {
    const c = ReviewComment.safeParse(raw);
    if (!c.success) continue;
    const id = findingIdFromBody(c.data.body);
    const f = id === null ? undefined : findings.get(id);
    if (f) findings.set(f.id, { ...f, githubCommentId: c.data.id });
  }
}
