import { z } from "zod";
import type { SourceUser, TrustedMessage } from "../source.js";
import { LinearApiError, type LinearApi } from "./linear-api.js";
import type { LinearRef } from "./linear-ref.js";

const CONTEXT_COMMENTS = 50;
const CONTEXT_CHARS = 20_000;

const User = z.object({ id: z.string(), name: z.string().nullish(), email: z.string().nullish() });
const Bot = z.object({ id: z.string().nullish(), name: z.string().nullish() }).nullish();
const ContextComment = z.object({ id: z.string(), body: z.string(), createdAt: z.string(), user: z.object({ name: z.string().nullish() }).nullish(), botActor: Bot });
const IssueContext = z.object({
  id: z.string(),
  identifier: z.string(),
  title: z.string(),
  description: z.string().nullish(),
  url: z.string().nullish(),
  comments: z.object({ nodes: z.array(ContextComment) }),
});

const ISSUE_FIELDS = `id identifier title description url
    comments(first: ${CONTEXT_COMMENTS}, orderBy: createdAt) { nodes { id body createdAt user { name } botActor { name } } }`;

const COMMENT_QUERY = `query OpenSweLinearComment($id: String!) {
  viewer { id }
  comment(id: $id) {
    id body createdAt
    user { id name email }
    botActor { id name }
    issue { ${ISSUE_FIELDS} }
  }
}`;

const CommentAnswer = z.object({
  viewer: z.object({ id: z.string() }).nullish(),
  comment: z.object({ id: z.string(), body: z.string(), createdAt: z.string(), user: User.nullish(), botActor: Bot, issue: IssueContext.nullish() }).nullish(),
});

// Linear pages connections newest first: the first page holds the latest changes and comments.
const ISSUE_QUERY = `query OpenSweLinearIssueTrigger($id: String!) {
  issue(id: $id) {
    ${ISSUE_FIELDS}
    trashed archivedAt
    creator { id name email }
    assignee { id } delegate { id }
    labels { nodes { id } }
    history(first: 100) { pageInfo { hasNextPage } nodes { createdAt actor { id name email } botActor { id } toAssignee { id } toDelegate { id } addedLabelIds } }
  }
}`;

const IssueAnswer = z.object({
  issue: IssueContext.extend({
    trashed: z.boolean().nullish(),
    archivedAt: z.string().nullish(),
    creator: User.nullish(),
    assignee: z.object({ id: z.string() }).nullish(),
    delegate: z.object({ id: z.string() }).nullish(),
    labels: z.object({ nodes: z.array(z.object({ id: z.string() })) }),
    history: z.object({
      pageInfo: z.object({ hasNextPage: z.boolean() }),
      nodes: z.array(
        z.object({
          createdAt: z.string(),
          actor: User.nullish(),
          botActor: Bot,
          toAssignee: z.object({ id: z.string() }).nullish(),
          toDelegate: z.object({ id: z.string() }).nullish(),
          addedLabelIds: z.array(z.string()).nullish(),
        }),
      ),
    }),
  }).nullish(),
});

function toUser(u: z.infer<typeof User>): SourceUser {
  return { id: u.id, ...(u.name ? { name: u.name } : {}), ...(u.email ? { email: u.email } : {}) };
}

/** The issue and the conversation before `before` (oldest first, newest kept within the cap). */
function issueContext(issue: z.infer<typeof IssueContext>, before: string | null, skipId?: string): string {
  const head = `Linear issue ${issue.identifier}: ${issue.title}${issue.url ? ` (${issue.url})` : ""}\n\n${issue.description ?? ""}`.trim();
  const earlier = issue.comments.nodes
    .filter((c) => c.id !== skipId && (before === null || c.createdAt < before))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    .map((c) => `${c.user?.name ?? c.botActor?.name ?? "someone"}: ${c.body}`);
  const kept: string[] = [];
  let size = head.length;
  for (const line of earlier.reverse()) {
    if (size + line.length > CONTEXT_CHARS) break;
    kept.unshift(line);
    size += line.length;
  }
  return kept.length ? `${head}\n\nEarlier comments:\n${kept.join("\n\n")}` : head;
}

async function orNull<T>(work: Promise<T>): Promise<T | null> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof LinearApiError && err.code === "linear_not_found") return null;
    throw err;
  }
}

/**
 * Re-reads what asked for the run with our own credential: the comment and its author, or for an
 * assigned/labelled issue the person the issue's history names for that change. `null`: the comment
 * or issue is gone, or the assignment/label was undone — nothing runs.
 */
export async function fetchLinearMessage(api: LinearApi, ref: LinearRef, appUserId: string | null): Promise<TrustedMessage | null> {
  if (ref.trigger === "comment") {
    if (!ref.commentId) throw new LinearApiError("linear_rejected", "a comment trigger without a comment id");
    const answer = await orNull(api.request(COMMENT_QUERY, { id: ref.commentId }, CommentAnswer));
    const c = answer?.comment;
    // Our own comment (the key's user) never asks us anything, LINEAR_APP_USER_ID set or not.
    if (!c || !c.user || c.botActor || c.user.id === answer?.viewer?.id) return null;
    return { text: c.body, user: toUser(c.user), ...(c.issue ? { context: issueContext(c.issue, c.createdAt, c.id) } : {}) };
  }
  const answer = await orNull(api.request(ISSUE_QUERY, { id: ref.issueId }, IssueAnswer));
  const issue = answer?.issue;
  if (!issue || issue.trashed || issue.archivedAt) return null;
  const history = [...issue.history.nodes].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  let entry: (typeof history)[number] | undefined;
  if (ref.trigger === "assigned") {
    if (!appUserId || (issue.assignee?.id !== appUserId && issue.delegate?.id !== appUserId)) return null;
    entry = history.find((h) => h.toAssignee?.id === appUserId || h.toDelegate?.id === appUserId);
  } else {
    if (!ref.labelId || !issue.labels.nodes.some((l) => l.id === ref.labelId)) return null;
    entry = history.find((h) => h.addedLabelIds?.includes(ref.labelId!));
  }
  // An issue created already assigned or labelled has no history entry for it: its creator asked. Only
  // when we saw the whole history — in a longer one the entry may be beyond the page, and the creator
  // is not who asked.
  const asker = entry ? (entry.botActor ? null : entry.actor) : issue.history.pageInfo.hasNextPage ? null : issue.creator;
  if (!asker) return null;
  return {
    text: `${issue.title}\n\n${issue.description ?? ""}`.trim(),
    user: toUser(asker),
    context: issueContext(issue, null),
  };
}
