import type { ProbotOctokit } from "probot";
import { z } from "zod";
import { errorMessage } from "../errors.js";
import { isDismissalReply } from "./dismissal.js";
import type { Finding, PullRef } from "./findings.js";

export interface ReviewThread {
  id: string;
  isResolved: boolean;
  /** databaseId of the thread's first comment: ours when the thread is one of our findings. */
  firstCommentId: number | null;
  /** The replies after the first comment. */
  replies?: Array<{ author: string | null; body: string }>;
  /** Who reacted 👎 to the first comment. */
  thumbsDown?: string[];
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
            comments: z.object({
              nodes: z.array(
                z.object({
                  databaseId: z.number().nullable(),
                  body: z.string().default(""),
                  author: z.object({ login: z.string() }).nullable().default(null),
                  reactions: z.object({ nodes: z.array(z.object({ user: z.object({ login: z.string() }).nullable() })) }).default({ nodes: [] }),
                }),
              ),
            }),
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
        nodes {
          id isResolved
          comments(first: 30) { nodes { databaseId body author { login } reactions(content: THUMBS_DOWN, first: 10) { nodes { user { login } } } } }
        }
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
    for (const n of conn.nodes) {
      const [first, ...rest] = n.comments.nodes;
      threads.push({
        id: n.id,
        isResolved: n.isResolved,
        firstCommentId: first?.databaseId ?? null,
        replies: rest.map((c) => ({ author: c.author?.login ?? null, body: c.body })),
        thumbsDown: (first?.reactions.nodes ?? []).flatMap((r) => (r.user ? [r.user.login] : [])),
      });
    }
    if (!conn.pageInfo.hasNextPage) break;
    cursor = conn.pageInfo.endCursor;
  }
  return threads;
}

/**
 * Pure: what people said on our threads. A 👎 on our comment or a dismissing reply (`isDismissalReply`)
 * by someone other than our bots dismisses the finding. A thread a person resolved is marked
 * `threadResolved` and left open: the reconcile of this pass decides — its line gone at the new head
 * means it was fixed (accepted), still there means it was resolved without a fix (dismissed). Call
 * before reconciling a new pass.
 */
export function applyHumanResolutions(findings: readonly Finding[], threads: readonly ReviewThread[], botLogins: readonly string[] = []): Finding[] {
  const bots = new Set(botLogins.map((b) => b.toLowerCase()));
  const person = (login: string | null) => login !== null && !bots.has(login.toLowerCase());
  const byComment = new Map(threads.filter((t) => t.firstCommentId !== null).map((t) => [t.firstCommentId!, t]));
  return findings.map((f) => {
    const t = f.githubCommentId === undefined ? undefined : byComment.get(f.githubCommentId);
    if (!t) return f;
    const withThread = { ...f, githubThreadId: t.id };
    if (f.status !== "open") return withThread;
    const dismissed = (t.thumbsDown ?? []).some(person) || (t.replies ?? []).some((r) => person(r.author) && isDismissalReply(r.body));
    if (dismissed) return { ...withThread, status: "dismissed" as const, closedBy: "human" as const, ...(t.isResolved ? { threadResolved: true } : {}) };
    return t.isResolved ? { ...withThread, threadResolved: true } : withThread;
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
