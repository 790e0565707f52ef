import type { Logger } from "pino";
import { hasMention } from "../../github/command.js";
import { OpenSweError } from "../../errors.js";
import type { SourceClient, TrustedMessage } from "../source.js";
import { adfToStorage } from "../atlassian/adf-to-storage.js";
import { markdownToAdf } from "../atlassian/markdown-to-adf.js";
import { storageToText } from "../atlassian/storage-to-text.js";
import { isPostedReply } from "../../shared/is-posted-reply.js";
import { ACK_MARKDOWN } from "../jira/jira-client.js";
import { ConfluenceApi, confluenceStatus, type ConfluenceToken } from "./confluence-api.js";
import { ATLASSIAN_MAX_AGE_MS, ATLASSIAN_MAX_SKEW_MS } from "../atlassian/verify-web-request.js";
import { ConfluenceRef, confluenceThreadKey } from "./confluence-ref.js";
import { hostOf } from "../atlassian/host-of.js";
import { commentBody, confluenceTools } from "./confluence-tools.js";
import type { ConnectInstalls } from "./install-store.js";

const MAX_TEXT = 20_000;
const MAX_CONTEXT = 4_000;

interface Content {
  id: string;
  title?: string;
  body?: { storage?: { value?: string } };
  history?: { createdBy?: { accountId?: string; displayName?: string; email?: string }; createdDate?: string };
  container?: { id?: string | number; title?: string; space?: { key?: string } };
  space?: { key?: string };
  /** A comment's parent comments, the thread's first comment first. */
  ancestors?: { id?: string | number; type?: string }[];
}

/**
 * Where re-read content really is (pure): its space and, for a comment, its thread's first comment — never
 * the request's claims, which neither Connect's token nor an Automation rule's secret vouches for. For an
 * Automation request (`ref.site`) the comment's page is the re-read container's too; null when it names none.
 */
export function trustedConversation(ref: ConfluenceRef, content: Content, site: string): NonNullable<TrustedMessage["conversation"]> | null {
  const rawSpace = content.space?.key ?? content.container?.space?.key;
  const spaceKey = typeof rawSpace === "string" && /^[A-Za-z0-9~_-]{1,255}$/.test(rawSpace) ? rawSpace : undefined;
  const space = spaceKey ? { spaceKey } : {};
  const defaults = spaceKey ? { repoDefaultKey: `confluence:${spaceKey}` } : {};
  const whose = ref.clientKey !== undefined ? { clientKey: ref.clientKey } : { site: ref.site! };
  if (ref.kind === "page") {
    return { ref: { kind: "page", ...whose, pageId: ref.pageId, ...space }, threadKey: confluenceThreadKey(site, ref.pageId, "page"), ...defaults };
  }
  const container = String(content.container?.id ?? "");
  const pageId = ref.site !== undefined ? container : ref.pageId;
  if (!/^\d{1,20}$/.test(pageId)) return null;
  const root = (content.ancestors ?? []).find((a) => a.type === "comment" && a.id !== undefined && /^\d{1,20}$/.test(String(a.id)));
  const threadRoot = root ? String(root.id) : ref.commentId;
  return {
    ref: { kind: "comment", ...whose, pageId, commentId: ref.commentId, threadRoot, ...space },
    threadKey: confluenceThreadKey(site, pageId, threadRoot),
    ...defaults,
  };
}

/**
 * An Automation request's content must have been created around when the request came in (pure): a request
 * replayed after the dedupe claim expired names content that is hours old by then, whatever its body says.
 */
export function freshContent(createdDate: string | undefined, receivedAt: number | undefined): boolean {
  const created = createdDate ? Date.parse(createdDate) : Number.NaN;
  if (!Number.isFinite(created) || receivedAt === undefined) return false;
  return receivedAt - created <= ATLASSIAN_MAX_AGE_MS && created - receivedAt <= ATLASSIAN_MAX_SKEW_MS;
}

/** The API token side of the source: the site an Automation rule posts from and how to call it. */
export interface ConfluenceTokenSite extends ConfluenceToken {
  /** `hostOf(baseUrl)`: what the Automation refs name and the thread keys are keyed on. */
  site: string;
}

/**
 * Worker side of Confluence: every call made as the Connect app with the install's shared secret (a ref with a
 * `clientKey`), or as the API token's account (a ref with the token's `site`; any other site fails closed).
 */
export class ConfluenceSourceClient implements SourceClient {
  private readonly me = new Map<string, Promise<string>>();

  constructor(
    private readonly creds: { installs: ConnectInstalls | null; token: ConfluenceTokenSite | null },
    private readonly opts: { appKey: string; handles: readonly string[]; log: Logger },
  ) {}

  private api(ref: ConfluenceRef): ConfluenceApi {
    if (ref.site !== undefined) {
      const token = this.creds.token;
      if (!token || token.site !== ref.site) throw new OpenSweError("confluence_not_configured", `no Confluence API token for ${ref.site.slice(0, 100)}`);
      return new ConfluenceApi(async () => token);
    }
    return new ConfluenceApi(async () => {
      const install = ref.clientKey ? await this.creds.installs?.get(ref.clientKey) : null;
      if (!install) throw new OpenSweError("confluence_not_installed", "the Confluence site uninstalled the app");
      return install;
    }, this.opts.appKey);
  }

  /** The app's own user on this install (or the token's account): its comments never trigger a run, and a mention must name it. */
  private myAccountId(ref: ConfluenceRef, api: ConfluenceApi): Promise<string> {
    const key = ref.clientKey ?? `site:${ref.site}`;
    let me = this.me.get(key);
    if (!me) {
      me = api.request<{ accountId: string }>("GET", "/rest/api/user/current").then((u) => u.accountId);
      this.me.set(key, me);
      me.catch(() => this.me.delete(key));
    }
    return me;
  }

  /** The site's host the thread keys use; null when the ref's credentials are gone (uninstalled, another site). */
  private async siteOf(ref: ConfluenceRef): Promise<string | null> {
    if (ref.site !== undefined) return this.creds.token?.site === ref.site ? ref.site : null;
    const install = ref.clientKey ? await this.creds.installs?.get(ref.clientKey) : null;
    return install ? (hostOf(install.baseUrl) ?? install.baseUrl) : null;
  }

  async fetchMessage(raw: Record<string, unknown>): Promise<TrustedMessage | null> {
    const ref = parseRef(raw);
    const site = await this.siteOf(ref);
    if (!site) return null;
    const api = this.api(ref);
    try {
      const me = await this.myAccountId(ref, api);
      const id = ref.kind === "comment" ? ref.commentId : ref.pageId;
      const content = await api.request<Content>("GET", `/rest/api/content/${id}`, { query: { expand: "body.storage,history,container,space,ancestors" } });
      if (ref.kind === "comment" && ref.clientKey !== undefined && String(content.container?.id ?? "") !== ref.pageId) return null;
      if (ref.site !== undefined && !freshContent(content.history?.createdDate, ref.receivedAt)) {
        this.opts.log.warn({ contentId: id, createdDate: content.history?.createdDate }, "confluence content was not created around when the request came in (a replay?): nothing runs");
        return null;
      }
      const author = content.history?.createdBy;
      if (!author?.accountId || author.accountId === me) return null;
      const { text, mentionIds } = storageToText(content.body?.storage?.value ?? "", { omitMention: me });
      if (!mentionIds.includes(me) && !hasMention(text, this.opts.handles)) {
        this.opts.log.info({ contentId: id }, "confluence content does not mention the app; nothing runs");
        return null;
      }
      const conversation = trustedConversation(ref, content, site);
      if (!conversation) return null;
      const pageId = (conversation.ref as { pageId: string }).pageId;
      const title = ref.kind === "comment" ? content.container?.title : content.title;
      const user = { id: author.accountId, ...(author.displayName ? { name: author.displayName } : {}), ...(author.email ? { email: author.email } : {}) };
      return { text: text.slice(0, MAX_TEXT), user, conversation, ...(title ? { context: `Confluence page "${title}" (id ${pageId})`.slice(0, MAX_CONTEXT) } : {}) };
    } catch (err) {
      if (confluenceStatus(err) === 404) return null;
      throw err;
    }
  }

  async acknowledge(raw: Record<string, unknown>): Promise<void> {
    await this.reply(raw, ACK_MARKDOWN);
  }

  async reply(raw: Record<string, unknown>, markdown: string): Promise<void> {
    const ref = parseRef(raw);
    const storage = adfToStorage(markdownToAdf(markdown));
    await this.api(ref).request("POST", "/rest/api/content", { body: commentBody(ref.pageId, storage, ref.kind === "comment" ? ref.threadRoot : undefined) });
  }

  /**
   * The replies under the thread's first comment (a page's top-level comments for a page): the app's own with
   * the text we would send. Confluence lists one level of children per call.
   */
  async postedReply(raw: Record<string, unknown>, markdown: string, since: string): Promise<boolean> {
    const ref = parseRef(raw);
    const api = this.api(ref);
    const me = await this.myAccountId(ref, api);
    const parent = ref.kind === "comment" ? ref.threadRoot : ref.pageId;
    const listed = await api.request<{ results?: Content[] }>("GET", `/rest/api/content/${parent}/child/comment`, { query: { expand: "body.storage,history", limit: "100" } });
    const want = { author: me, text: storageToText(adfToStorage(markdownToAdf(markdown))).text, sinceMs: Date.parse(since) };
    return (listed.results ?? []).some((c) =>
      isPostedReply(
        { author: c.history?.createdBy?.accountId, text: storageToText(c.body?.storage?.value ?? "").text, createdAtMs: c.history?.createdDate ? Date.parse(c.history.createdDate) : Number.NaN },
        want,
      ),
    );
  }

  tools(raw: Record<string, unknown>) {
    const ref = parseRef(raw);
    return confluenceTools(this.api(ref), ref);
  }
}

function parseRef(raw: Record<string, unknown>): ConfluenceRef {
  const ref = ConfluenceRef.safeParse(raw);
  if (!ref.success) throw new OpenSweError("source_ref_invalid", `not a Confluence reference: ${ref.error.issues[0]?.message ?? "invalid"}`);
  return ref.data;
}
