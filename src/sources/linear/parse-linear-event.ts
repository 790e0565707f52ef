import { z } from "zod";
import type { SourceEvent, SourceUser } from "../source.js";
import { mentionsLinearApp } from "./linear-mention.js";
import type { LinearRef } from "./linear-ref.js";
import type { LinearSettings } from "./linear-settings.js";

const Actor = z.object({ id: z.string().min(1), name: z.string().optional(), email: z.string().optional(), type: z.string().optional() });

const CommentData = z.object({
  id: z.string().min(1),
  body: z.string(),
  userId: z.string().nullish(),
  user: z.object({ id: z.string(), name: z.string().optional(), email: z.string().optional() }).nullish(),
  botActor: z.unknown().optional(),
  issueId: z.string().nullish(),
  issue: z.object({ id: z.string(), teamId: z.string().optional(), team: z.object({ id: z.string() }).optional() }).nullish(),
  parentId: z.string().nullish(),
});

const IssueData = z.object({
  id: z.string().min(1),
  teamId: z.string().nullish(),
  title: z.string(),
  description: z.string().nullish(),
  assigneeId: z.string().nullish(),
  delegateId: z.string().nullish(),
  labels: z.array(z.object({ id: z.string(), name: z.string() })).nullish(),
  trashed: z.boolean().nullish(),
  archivedAt: z.string().nullish(),
});

const Envelope = z.object({
  type: z.string(),
  action: z.string(),
  /** Signed with the body: the dedupe key is built from it, never from the unsigned `Linear-Delivery` header. */
  webhookId: z
    .string()
    .regex(/^[\w-]{1,128}$/)
    .optional(),
  actor: Actor.nullish(),
  data: z.unknown(),
  updatedFrom: z.record(z.string(), z.unknown()).nullish(),
});

const Entity = z.object({ id: z.string().min(1), updatedAt: z.string().nullish() });

/**
 * What one event is, from the signed body only: the webhook, the entity, the action — and for an
 * update, the entity's new `updatedAt` (a later change of the same issue is another event; a
 * redelivery of this one is not). The `Linear-Delivery` header is not signed, so it never counts.
 */
export function linearDedupeKey(e: { webhookId: string; type: string; action: string; data: { id: string; updatedAt?: string | null | undefined } }): string {
  return ["linear", e.webhookId, e.type, e.data.id, e.action, ...(e.action === "update" ? [e.data.updatedAt ?? ""] : [])].join(":");
}

/** A verified Linear webhook → what it asks for (pure). */
export function parseLinearEvent(body: unknown, settings: LinearSettings): SourceEvent {
  const envelope = Envelope.safeParse(body);
  if (!envelope.success) return { kind: "ignore", reason: "not a Linear entity event" };
  const e = envelope.data;
  if (e.type !== "Comment" && e.type !== "Issue") return { kind: "ignore", reason: `${e.type} events are not handled` };
  const entity = Entity.safeParse(e.data);
  if (!e.webhookId || !entity.success) return { kind: "ignore", reason: "no webhookId or entity id in the signed body" };
  const key = linearDedupeKey({ webhookId: e.webhookId, type: e.type, action: e.action, data: entity.data });
  return e.type === "Comment" ? parseComment(e, key, settings) : parseIssue(e, key, settings);
}

function parseComment(e: z.infer<typeof Envelope>, delivery: string, s: LinearSettings): SourceEvent {
  if (e.action !== "create") return { kind: "ignore", reason: `comment ${e.action}` };
  const parsed = CommentData.safeParse(e.data);
  if (!parsed.success) return { kind: "ignore", reason: "comment payload without id or body" };
  const c = parsed.data;
  if (c.botActor != null || (e.actor?.type !== undefined && e.actor.type !== "user")) return { kind: "ignore", reason: "comment by a bot or integration" };
  const userId = c.userId ?? c.user?.id ?? null;
  if (!userId) return { kind: "ignore", reason: "comment without a Linear user" };
  if (s.appUserId && (userId === s.appUserId || e.actor?.id === s.appUserId)) return { kind: "ignore", reason: "our own comment" };
  const issueId = c.issueId ?? c.issue?.id ?? null;
  if (!issueId) return { kind: "ignore", reason: "comment is not on an issue" };
  if (!mentionsLinearApp(c.body, s.mentionHandles)) return { kind: "ignore", reason: `comment mentions none of ${s.mentionHandles.map((h) => `@${h}`).join(", ")}`, unaddressed: true };
  const teamId = c.issue?.teamId ?? c.issue?.team?.id;
  const ref: LinearRef = {
    issueId,
    trigger: "comment",
    commentId: c.id,
    parentId: c.parentId ?? c.id,
    ...(teamId ? { teamId } : {}),
  };
  const user: SourceUser = { id: userId, ...pick(c.user ?? e.actor) };
  return mention(delivery, issueId, teamId, c.body, user, ref);
}

function parseIssue(e: z.infer<typeof Envelope>, delivery: string, s: LinearSettings): SourceEvent {
  if (e.action !== "create" && e.action !== "update") return { kind: "ignore", reason: `issue ${e.action}` };
  const parsed = IssueData.safeParse(e.data);
  if (!parsed.success) return { kind: "ignore", reason: "issue payload without id or title" };
  const issue = parsed.data;
  if (!e.actor) return { kind: "ignore", reason: "issue change without an actor" };
  if (e.actor.type !== undefined && e.actor.type !== "user") return { kind: "ignore", reason: "issue change by a bot or integration" };
  if (s.appUserId && e.actor.id === s.appUserId) return { kind: "ignore", reason: "our own issue change" };
  if (issue.trashed || issue.archivedAt) return { kind: "ignore", reason: "issue is archived or deleted" };
  const before = e.updatedFrom ?? {};
  const created = e.action === "create";
  const changed = (key: string) => created || Object.hasOwn(before, key);
  const app = s.appUserId;
  const assigned =
    app !== null && ((issue.assigneeId === app && changed("assigneeId") && before["assigneeId"] !== app) || (issue.delegateId === app && changed("delegateId") && before["delegateId"] !== app));
  const label = (issue.labels ?? []).find((l) => l.name.toLowerCase() === s.triggerLabel);
  const previousLabels = Array.isArray(before["labelIds"]) ? (before["labelIds"] as unknown[]) : null;
  const labelled = label !== undefined && (created || (previousLabels !== null && !previousLabels.includes(label.id)));
  if (!assigned && !labelled) return { kind: "ignore", reason: `issue ${e.action} neither assigns the app nor adds the "${s.triggerLabel}" label` };
  const teamId = issue.teamId ?? undefined;
  const ref: LinearRef = {
    issueId: issue.id,
    trigger: assigned ? "assigned" : "labelled",
    ...(assigned || !label ? {} : { labelId: label.id }),
    ...(teamId ? { teamId } : {}),
  };
  const text = `${issue.title}\n\n${issue.description ?? ""}`.trim();
  return mention(delivery, issue.id, teamId, text, { id: e.actor.id, ...pick(e.actor) }, ref);
}

function pick(u: { name?: string | undefined; email?: string | undefined } | null | undefined): Omit<SourceUser, "id"> {
  return { ...(u?.name ? { name: u.name } : {}), ...(u?.email ? { email: u.email } : {}) };
}

function mention(delivery: string, issueId: string, teamId: string | undefined, text: string, user: SourceUser, ref: LinearRef): SourceEvent {
  return {
    kind: "mention",
    dedupeKey: delivery,
    threadKey: `linear:${issueId}`,
    text,
    user,
    ref,
    ...(teamId ? { repoDefaultKey: `linear:${teamId}` } : {}),
  };
}
