import type { ProbotOctokit } from "probot";
import { z } from "zod";
import { errorMessage } from "../errors.js";
import type { Finding, PullRef } from "./findings.js";

export interface ReviewThread {
  id: string;
  isResolved: boolean;
  /** databaseId of the thread's first comment: ours when the thread is one of our findings. */
  firstCommentId: number | null;
}

const ThreadsPage = z.object({
  repository: z.object({
    pullRequest: z.object({
      reviewThreads: z.object({
        pageInfo: z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() }),
        nodes: z.array(
          z.object({
            id: z.string(),
            isResolved: z.boolean(),
            comments: z.object({ nodes: z.array(z.object({ databaseId: z.number().nullable() })) }),
          }),
        ),
      }),
    }),
  }),
});

const THREADS_QUERY = `query($owner: String!, $repo: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved comments(first: 1) { nodes { databaseId } } }
      }
    }
  }
}`;

const RESOLVE_MUTATION = `mutation($threadId: ID!) {
  resolveReviewThread(input: { threadId: $threadId }) { thread { id isResolved } }
}`;

const MAX_PAGES = 10;

export async function fetchReviewThreads(octokit: ProbotOctokit, pr: PullRef): Promise<ReviewThread[]> {
  const threads: ReviewThread[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const raw: unknown = await octokit.graphql(THREADS_QUERY, { owner: pr.owner, repo: pr.repo, number: pr.pull_number, cursor });
    const conn: z.infer<typeof ThreadsPage>["repository"]["pullRequest"]["reviewThreads"] = ThreadsPage.parse(raw).repository.pullRequest.reviewThreads;
    for (const n of conn.nodes) threads.push({ id: n.id, isResolved: n.isResolved, firstCommentId: n.comments.nodes[0]?.databaseId ?? null });
    if (!conn.pageInfo.hasNextPage) break;
    cursor = conn.pageInfo.endCursor;
  }
  return threads;
}

/**
 * Pure: an open finding whose thread a human resolved on GitHub becomes `resolved`, so it is
 * never raised again. Call before reconciling a new pass.
 */
export function applyHumanResolutions(findings: readonly Finding[], threads: readonly ReviewThread[]): Finding[] {
  const byComment = new Map(threads.filter((t) => t.firstCommentId !== null).map((t) => [t.firstCommentId!, t]));
  return findings.map((f) => {
    const t = f.githubCommentId === undefined ? undefined : byComment.get(f.githubCommentId);
    if (!t) return f;
    const withThread = { ...f, githubThreadId: t.id };
    return f.status === "open" && t.isResolved ? { ...withThread, status: "resolved" as const, closedBy: "human" as const, threadResolved: true } : withThread;
  });
}

/**
 * Resolves our own review threads for findings resolved by a fix. Best-effort: failures are
 * appended to `warnings`. Returns the findings it marked `threadResolved`.
 */
export async function resolveFindingThreads(args: { octokit: ProbotOctokit; pr: PullRef; findings: readonly Finding[]; warnings: string[] }): Promise<Finding[]> {
  const { octokit, pr, warnings } = args;
  const pending = args.findings.filter((f) => f.status === "resolved" && f.githubCommentId !== undefined && f.threadResolved !== true);
  if (pending.length === 0) return [];
  let threads: ReviewThread[] = [];
  if (pending.some((f) => f.githubThreadId === undefined)) {
    try {
      threads = await fetchReviewThreads(octokit, pr);
    } catch (err) {
      warnings.push(`could not list review threads: ${errorMessage(err)}`);
      return [];
    }
  }
  const byComment = new Map(threads.map((t) => [t.firstCommentId, t]));
  const done: Finding[] = [];
  for (const f of pending) {
    const thread = byComment.get(f.githubCommentId!);
    const threadId = f.githubThreadId ?? thread?.id;
    if (threadId === undefined) {
      warnings.push(`no review thread found for finding ${f.id} (comment ${f.githubCommentId})`);
      continue;
    }
    try {
      if (thread?.isResolved !== true) await octokit.graphql(RESOLVE_MUTATION, { threadId });
      done.push({ ...f, githubThreadId: threadId, threadResolved: true });
    } catch (err) {
      warnings.push(`could not resolve thread ${threadId} of finding ${f.id}: ${errorMessage(err)}`);
    }
  }
  return done;
}
