import type { Logger } from "pino";
import { hasMention } from "../../github/command.js";
import { OpenSweError } from "../../errors.js";
import type { SourceClient, TrustedMessage } from "../source.js";
import { adfToStorage } from "../atlassian/adf-to-storage.js";
import { markdownToAdf } from "../atlassian/markdown-to-adf.js";
import { storageToText } from "../atlassian/storage-to-text.js";
import { isPostedReply } from "../../shared/is-posted-reply.js";
import { ACK_MARKDOWN } from "../jira/jira-client.js";
import { ConfluenceApi, confluenceStatus } from "./confluence-api.js";
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
 * the webhook's claims, which the Connect token does not sign.
 */
export function trustedConversation(ref: ConfluenceRef, content: Content, site: string): NonNullable<TrustedMessage["conversation"]> {
  const rawSpace = content.space?.key ?? content.container?.space?.key;
  const spaceKey = typeof rawSpace === "string" && /^[A-Za-z0-9~_-]{1,255}$/.test(rawSpace) ? rawSpace : undefined;
  const space = spaceKey ? { spaceKey } : {};
  const defaults = spaceKey ? { repoDefaultKey: `confluence:${spaceKey}` } : {};
  if (ref.kind === "page") {
    return { ref: { kind: "page", clientKey: ref.clientKey, pageId: ref.pageId, ...space }, threadKey: confluenceThreadKey(site, ref.pageId, "page"), ...defaults };
  }
  const root = (content.ancestors ?? []).find((a) => a.type === "comment" && a.id !== undefined && /^\d{1,20}$/.test(String(a.id)));
  const threadRoot = root ? String(root.id) : ref.commentId;
  return {
    ref: { kind: "comment", clientKey: ref.clientKey, pageId: ref.pageId, commentId: ref.commentId, threadRoot, ...space },
    threadKey: confluenceThreadKey(site, ref.pageId, threadRoot),
    ...defaults,
  };
}

/** Worker side of Confluence: every call made as the Connect app with the install's shared secret. */
export class ConfluenceSourceClient implements SourceClient {
  private readonly me = new Map<string, Promise<string>>();

  constructor(
    private readonly installs: ConnectInstalls,
    private readonly opts: { appKey: string; handles: readonly string[]; log: Logger },
  ) {}

  private api(ref: ConfluenceRef): ConfluenceApi {
    return new ConfluenceApi(async () => {
      const install = await this.installs.get(ref.clientKey);
      if (!install) throw new OpenSweError("confluence_not_installed", "the Confluence site uninstalled the app");
      return install;
    }, this.opts.appKey);
  }

  /** The app's own user on this install: its comments never trigger a run, and a mention must name it. */
  private myAccountId(ref: ConfluenceRef, api: ConfluenceApi): Promise<string> {
    let me = this.me.get(ref.clientKey);
    if (!me) {
      me = api.request<{ accountId: string }>("GET", "/rest/api/user/current").then((u) => u.accountId);
      this.me.set(ref.clientKey, me);
      me.catch(() => this.me.delete(ref.clientKey));
    }
    return me;
  }

  async fetchMessage(raw: Record<string, unknown>): Promise<TrustedMessage | null> {
    const ref = parseRef(raw);
    const install = await this.installs.get(ref.clientKey);
    if (!install) return null;
    const api = this.api(ref);
    try {
      const me = await this.myAccountId(ref, api);
      const id = ref.kind === "comment" ? ref.commentId : ref.pageId;
      const content = await api.request<Content>("GET", `/rest/api/content/${id}`, { query: { expand: "body.storage,history,container,space,ancestors" } });
      if (ref.kind === "comment" && String(content.container?.id ?? "") !== ref.pageId) return null;
      const author = content.history?.createdBy;
      if (!author?.accountId || author.accountId === me) return null;
      const { text, mentionIds } = storageToText(content.body?.storage?.value ?? "", { omitMention: me });
      if (!mentionIds.includes(me) && !hasMention(text, this.opts.handles)) {
        this.opts.log.info({ contentId: id }, "confluence content does not mention the app; nothing runs");
        return null;
      }
      const title = ref.kind === "comment" ? content.container?.title : content.title;
      const user = { id: author.accountId, ...(author.displayName ? { name: author.displayName } : {}), ...(author.email ? { email: author.email } : {}) };
      const conversation = trustedConversation(ref, content, hostOf(install.baseUrl) ?? install.baseUrl);
      return { text: text.slice(0, MAX_TEXT), user, conversation, ...(title ? { context: `Confluence page "${title}" (id ${ref.pageId})`.slice(0, MAX_CONTEXT) } : {}) };
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
