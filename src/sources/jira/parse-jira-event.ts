import { z } from "zod";
import { hasMention } from "../../github/command.js";
import type { SourceEvent, SourceUser } from "../source.js";
import { adfToText } from "../atlassian/adf-to-text.js";
import { hostOf } from "../atlassian/host-of.js";
import { JiraIssueKey, jiraProjectKey, jiraThreadKey, type JiraRef } from "./jira-ref.js";

const JiraUser = z.looseObject({ accountId: z.string().min(1), displayName: z.string().optional(), emailAddress: z.string().optional() });

/** What we read from an admin webhook or an Automation web request (same shape: see README). */
const JiraWebhook = z.looseObject({
  webhookEvent: z.string().min(1),
  issue: z.looseObject({
    key: z.string(),
    self: z.string().optional(),
    fields: z.looseObject({ summary: z.string().optional(), description: z.unknown().optional() }).optional(),
  }),
  comment: z.looseObject({ id: z.union([z.string(), z.number()]).transform(String), body: z.unknown().optional(), author: JiraUser.optional() }).optional(),
  user: JiraUser.optional(),
});

/** Jira's wiki-markup account mention (`[~accountid:…]`), as admin webhooks deliver comment bodies. */
const WIKI_MENTION = /\[~accountid:[^\]\s]+\]/;

function bodyText(body: unknown): { text: string; mentions: boolean } {
  if (typeof body === "string") return { text: body, mentions: WIKI_MENTION.test(body) };
  const { text, mentionIds } = adfToText(body);
  return { text, mentions: mentionIds.length > 0 };
}

/**
 * A verified Jira delivery → what to do. Web side only: it cannot tell whose account a mention names (that
 * needs the API), so any account mention or a typed `@handle` is a candidate; the worker re-reads the comment
 * and runs only if it names our account (or the handle) and was not written by us.
 */
export function parseJiraEvent(raw: Buffer, opts: { site: string; handles: readonly string[] }): SourceEvent {
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch {
    return { kind: "ignore", reason: "body is not JSON" };
  }
  const parsed = JiraWebhook.safeParse(json);
  if (!parsed.success) return { kind: "ignore", reason: `not a Jira issue or comment event (${parsed.error.issues[0]?.path.join(".") || "body"})` };
  const p = parsed.data;
  const key = JiraIssueKey.safeParse(p.issue.key);
  if (!key.success) return { kind: "ignore", reason: "issue.key is not an issue key" };
  if (p.issue.self !== undefined && hostOf(p.issue.self) !== opts.site) return { kind: "ignore", reason: "issue from another Jira site" };
  const issueKey = key.data;
  const base = { threadKey: jiraThreadKey(opts.site, issueKey), repoDefaultKey: `jira:${jiraProjectKey(issueKey)}` };
  const asks = (b: { text: string; mentions: boolean }) => b.mentions || hasMention(b.text, opts.handles);

  if (p.webhookEvent === "comment_created") {
    if (!p.comment) return { kind: "ignore", reason: "comment_created without a comment" };
    if (!/^\d{1,20}$/.test(p.comment.id)) return { kind: "ignore", reason: "comment.id is not a Jira id" };
    const body = bodyText(p.comment.body);
    if (!asks(body)) return { kind: "ignore", reason: "the comment mentions no one" };
    const ref: JiraRef = { kind: "comment", site: opts.site, issueKey, commentId: p.comment.id };
    return { kind: "mention", dedupeKey: `jira:${opts.site}:comment:${p.comment.id}`, text: body.text, user: user(p.comment.author ?? p.user), ref, ...base };
  }
  if (p.webhookEvent === "jira:issue_created") {
    const summary = p.issue.fields?.summary ?? "";
    const description = bodyText(p.issue.fields?.description ?? "");
    const body = { text: `${summary}\n\n${description.text}`.trim(), mentions: description.mentions };
    if (!asks(body)) return { kind: "ignore", reason: "the new issue mentions no one" };
    const ref: JiraRef = { kind: "issue", site: opts.site, issueKey };
    return { kind: "mention", dedupeKey: `jira:${opts.site}:issue:${issueKey}:created`, text: body.text, user: user(p.user), ref, ...base };
  }
  return { kind: "ignore", reason: `event ${p.webhookEvent.slice(0, 64)} is not acted on` };
}

function user(u: z.infer<typeof JiraUser> | undefined): SourceUser {
  if (!u) return { id: "unknown" };
  return { id: u.accountId, ...(u.displayName ? { name: u.displayName } : {}), ...(u.emailAddress ? { email: u.emailAddress } : {}) };
}
