import type { IncomingHttpHeaders } from "node:http";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { Logger } from "pino";
import type { AgentSource } from "../queue/schemas.js";
import type { SourceName } from "../shared/source-names.js";

/**
 * One adapter family for every channel people reach the agent from besides GitHub (Slack, Linear,
 * Jira, Confluence, …). The web role only verifies, parses and enqueues (no API call); the worker
 * re-reads what it must trust, maps the person to a GitHub login, resolves the repository and
 * answers through the same adapter. `test/sources/conformance.ts` is the suite every source runs.
 */
export { SOURCE_NAMES, type SourceName } from "../shared/source-names.js";

/** What a route sees: the bytes as received, before anything parses them. */
export interface InboundRequest {
  method: string;
  /** Path and query exactly as requested (Connect's qsh signs them). */
  url: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  receivedAt: Date;
}

/** `reason` is logged, never sent: a refused request gets a bare 401. */
export type Verification = { ok: true; installKey?: string /** The signed `iat` of a token-authenticated request (Connect). */; issuedAt?: number } | { ok: false; reason: string };

/** A person on the source, as the payload claims; the worker re-reads it before trusting it. */
export interface SourceUser {
  id: string;
  name?: string;
  email?: string;
}

/** What a verified request asks for. */
export type SourceEvent =
  /** Answered on the spot (Slack's url_verification challenge, Connect's lifecycle acks). */
  | { kind: "respond"; status: number; body: unknown }
  /** Verified but nothing to do (our own message, an edit, an event we don't act on): 200, nothing queued. */
  | { kind: "ignore"; reason: string /** A person's message that names none of our handles: logged at info, so a missed handle is visible. */; unaddressed?: true }
  /** Someone asked the agent for something: becomes one `source-event` job, deduplicated on `dedupeKey`. */
  | {
      kind: "mention";
      /** Stable across redeliveries of the same event (Slack event_id, Linear-Delivery, …). */
      dedupeKey: string;
      /** The thread key the uuid v5 thread id is derived from (`slack:<team>:<channel>:<ts>`, `linear:<issue>`). */
      threadKey: string;
      /** The text as delivered; the worker re-fetches it with our credentials before acting. */
      text: string;
      user: SourceUser;
      /** Where the worker answers: the source's own zod-checked reference (channel + ts, issue + comment id, …). */
      ref: Record<string, unknown>;
      /** Settings key for the default repository (`slack:<channel>`, `linear:<team>`, `jira:<project>`). */
      repoDefaultKey?: string;
      /** A signed button click (the payload's user is the source's own word): an approval decision. */
      action?: { kind: "approval"; approvalId: string; decision: "approve" | "deny" };
    };

/** One HTTP route a source owns, mounted before Probot's middleware. */
export interface SourceRoute {
  method: "GET" | "POST";
  path: string;
  /**
   * Lower-case header names of which a genuine request carries at least one (Slack's `x-slack-signature`,
   * Connect's `authorization`): without any, the request is refused before its body is read. `[]` only
   * for a route that takes no signed body (Connect's descriptor).
   */
  signatureHeaders: readonly string[];
  /** False when this route's own settings are unset though its source is configured (Confluence: Connect or Automation): refused like an unconfigured source. */
  configured?: boolean;
  /**
   * A refusal says why in a `WWW-Authenticate` header (the body stays empty), for a sender whose admin reads
   * the answer (an Automation rule's audit log). Reasons never carry a secret.
   */
  explainRefusal?: true;
  /** Verify first, on the raw bytes, timing-safe. Never throws for bad input. */
  verify(req: InboundRequest): Promise<Verification>;
  /** Only called on a verified request. Never throws for bad input: an `ignore` says why. */
  parse(req: InboundRequest, verification: Extract<Verification, { ok: true }>): Promise<SourceEvent> | SourceEvent;
}

/** What the worker re-read with our own credentials: the only text and author it acts on. */
export interface TrustedMessage {
  text: string;
  user: SourceUser;
  /** Earlier messages of the conversation given to the agent as context (bounded by the source). */
  context?: string;
  /** Images attached to the message, fetched host-side later (never by the sandbox). */
  attachments?: { url: string; mediaType?: string }[];
  /**
   * Where the message really is, as the re-read found it, for a source whose signature does not cover
   * the body (Confluence): replaces the payload's reference, thread key and default-repository key.
   */
  conversation?: { ref: Record<string, unknown>; threadKey: string; repoDefaultKey?: string };
}

export type RunStatus = { kind: "thinking" } | { kind: "tool"; name: string } | { kind: "done" };

/** Worker-side half of a source: everything that calls the source's API. */
export interface SourceClient {
  /** Re-read the triggering message; `null` when it is gone (deleted) — nothing runs. */
  fetchMessage(ref: Record<string, unknown>): Promise<TrustedMessage | null>;
  /** 👀 or a Linear thought, at once. */
  acknowledge(ref: Record<string, unknown>): Promise<void>;
  /** Optional progress while the run works (Slack assistant status). */
  status?(ref: Record<string, unknown>, status: RunStatus): Promise<void>;
  /** A reply in the conversation (Markdown in; the source converts). */
  reply(ref: Record<string, unknown>, markdown: string): Promise<void>;
  /**
   * Whether this app's own identity already posted `markdown` in the conversation at or after `since` (ISO):
   * asked only by a resumed run, before it replies (one listing call). Optional: without it, the reply is posted.
   */
  postedReply?(ref: Record<string, unknown>, markdown: string, since: string): Promise<boolean>;
  /**
   * The person's email as the source vouches for it (confirmed), for matching a GitHub account's public
   * email when no `settings identity` maps them; null when unknown or unconfirmed. Optional.
   */
  verifiedEmail?(user: SourceUser): Promise<string | null>;
  /** An approval request with Approve / Deny buttons (value = the approval id); without it, `reply`. */
  approvalRequest?(ref: Record<string, unknown>, markdown: string, approvalId: string): Promise<void>;
  /** The request message (`ref` as the click's) rewritten to say how it was decided, buttons gone. */
  approvalDecided?(ref: Record<string, unknown>, markdown: string): Promise<void>;
  /** The agent's tools for this conversation (`slack_thread_reply`, `linear_comment`, …). */
  tools(ref: Record<string, unknown>): StructuredToolInterface[];
  /**
   * A tracker's tools for a run of a repository linked to `where` (`settings source-repo set <source>:<where>`)
   * that was asked elsewhere: reads, and writes kept inside `where` (a project, a team). Optional.
   */
  linkedTools?(where: string): StructuredToolInterface[];
}

/** A run asked from another source: where it answers and the client that does. */
export interface RunSourceChannel {
  origin: Exclude<AgentSource, { kind: "github" }>;
  client: SourceClient;
}

export interface Source {
  name: SourceName;
  /** False when its secret is unset: every request to its routes is refused (and start-up says so once). */
  configured: boolean;
  /** What is missing, named by the start-up warning: the unset variables (`SLACK_SIGNING_SECRET`, or `JIRA_EMAIL, JIRA_API_TOKEN`). */
  secretEnv?: string | undefined;
  /** One start-up warning line, when the source is configured in a way that needs the operator (Confluence's Connect path). */
  warning?: { key: string; message: string };
  routes: SourceRoute[];
  /** Built in the worker, with the source's API credentials. */
  client(log: Logger): SourceClient;
}
