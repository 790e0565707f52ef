import type { Version3Client } from "jira.js";
import type { Logger } from "pino";
import { hasMention } from "../../github/command.js";
import { OpenSweError } from "../../errors.js";
import type { SourceClient, SourceUser, TrustedMessage } from "../source.js";
import { isPostedReply } from "../../shared/is-posted-reply.js";
import { adfToText } from "../atlassian/adf-to-text.js";
import { markdownToAdf } from "../atlassian/markdown-to-adf.js";
import { jiraStatus } from "./jira-api.js";
import { JiraRef, jiraProjectKey } from "./jira-ref.js";
import { jiraTools } from "./jira-tools.js";

const MAX_TEXT = 20_000;
const MAX_CONTEXT = 4_000;

interface JiraAuthor {
  accountId?: string;
  displayName?: string;
  emailAddress?: string;
}

export const ACK_MARKDOWN = "👀 On it — I'll reply here.";

/** Worker side of Jira: re-reads with the bot's API token, answers as comments in ADF. */
export class JiraSourceClient implements SourceClient {
  private me: Promise<string> | undefined;

  constructor(
    private readonly api: Version3Client,
    private readonly opts: { siteUrl: string; handles: readonly string[]; log: Logger },
  ) {}

  /** The bot account's id: its own comments never trigger a run, and a mention must name it. */
  private myAccountId(): Promise<string> {
    this.me ??= this.api.myself.getCurrentUser<{ accountId: string }>().then((u) => u.accountId);
    this.me.catch(() => (this.me = undefined));
    return this.me;
  }

  async fetchMessage(raw: Record<string, unknown>): Promise<TrustedMessage | null> {
    const ref = parseRef(raw);
    const me = await this.myAccountId();
    try {
      const issue = await this.api.issues.getIssue<{ fields: { summary?: string; description?: unknown; reporter?: JiraAuthor | null; creator?: JiraAuthor | null } }>({
        issueIdOrKey: ref.issueKey,
        fields: ["summary", "description", "reporter", "creator"],
      });
      const summary = issue.fields.summary ?? "";
      const description = adfToText(issue.fields.description, { omitMention: me });
      let text: string;
      let mentionIds: string[];
      let author: JiraAuthor | null | undefined;
      if (ref.kind === "comment") {
        const comment = await this.api.issueComments.getComment<{ body?: unknown; author?: JiraAuthor }>({ issueIdOrKey: ref.issueKey, id: ref.commentId });
        ({ text, mentionIds } = adfToText(comment.body, { omitMention: me }));
        author = comment.author;
      } else {
        text = `${summary}\n\n${description.text}`.trim();
        mentionIds = description.mentionIds;
        author = issue.fields.creator ?? issue.fields.reporter;
      }
      if (!author?.accountId || author.accountId === me) return null;
      if (!mentionIds.includes(me) && !hasMention(text, this.opts.handles)) {
        this.opts.log.info({ issueKey: ref.issueKey }, "jira message does not mention the bot; nothing runs");
        return null;
      }
      const context = ref.kind === "comment" ? `Jira issue ${ref.issueKey}: ${summary}\n\n${description.text}`.slice(0, MAX_CONTEXT) : undefined;
      return { text: text.slice(0, MAX_TEXT), user: toUser(author.accountId, author), ...(context ? { context } : {}) };
    } catch (err) {
      if (jiraStatus(err) === 404) return null;
      throw err;
    }
  }

  async acknowledge(raw: Record<string, unknown>): Promise<void> {
    await this.reply(raw, ACK_MARKDOWN);
  }

  async reply(raw: Record<string, unknown>, markdown: string): Promise<void> {
    const ref = parseRef(raw);
    await this.api.issueComments.addComment({ issueIdOrKey: ref.issueKey, comment: markdownToAdf(markdown) as never });
  }

  /** The issue's newest 100 comments (`orderBy=-created`): the bot account's with the text we would send. */
  async postedReply(raw: Record<string, unknown>, markdown: string, since: string): Promise<boolean> {
    const ref = parseRef(raw);
    const me = await this.myAccountId();
    const page = await this.api.issueComments.getComments<{ comments?: { author?: JiraAuthor; body?: unknown; created?: string }[] }>({
      issueIdOrKey: ref.issueKey,
      orderBy: "-created",
      maxResults: 100,
    });
    const want = { author: me, text: adfToText(markdownToAdf(markdown)).text, sinceMs: Date.parse(since) };
    return (page.comments ?? []).some((c) => isPostedReply({ author: c.author?.accountId, text: adfToText(c.body).text, createdAtMs: c.created ? Date.parse(c.created) : Number.NaN }, want));
  }

  tools(raw: Record<string, unknown>) {
    const ref = parseRef(raw);
    return jiraTools(this.api, { project: jiraProjectKey(ref.issueKey), issueKey: ref.issueKey }, this.opts.siteUrl);
  }

  /** `where` is the linked project key (`jira:ENG`): no conversation issue, so every write names its issue. */
  linkedTools(where: string) {
    return jiraTools(this.api, { project: where }, this.opts.siteUrl);
  }
}

function parseRef(raw: Record<string, unknown>): JiraRef {
  const ref = JiraRef.safeParse(raw);
  if (!ref.success) throw new OpenSweError("source_ref_invalid", `not a Jira reference: ${ref.error.issues[0]?.message ?? "invalid"}`);
  return ref.data;
}

function toUser(id: string, a: JiraAuthor): SourceUser {
  return { id, ...(a.displayName ? { name: a.displayName } : {}), ...(a.emailAddress ? { email: a.emailAddress } : {}) };
}
