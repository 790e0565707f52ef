import { encodeSymmetric } from "atlassian-jwt";
import { OpenSweError } from "../../errors.js";
import { connectQsh } from "./connect-jwt.js";
import type { ConnectInstall } from "./install-store.js";
import { httpFailureText } from "../http-failure-text.js";

export class ConfluenceHttpError extends OpenSweError<"confluence_http"> {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super("confluence_http", message);
  }
}

/** An API token of the bot (or a scoped service account): basic auth, no Connect app. */
export interface ConfluenceToken {
  /** The REST base: `https://acme.atlassian.net/wiki`, or the API gateway's `…/ex/confluence/<cloudId>/wiki`. */
  baseUrl: string;
  email: string;
  apiToken: string;
}

/** Who the calls are made as: a Connect install (its shared secret signs a JWT per call) or an API token. */
export type ConfluenceCredentials = ConnectInstall | ConfluenceToken;

/**
 * Confluence REST (v1) as the Connect app — each call signed with a fresh JWT (iss = app key, qsh of the
 * call) — or as the account of an API token (basic auth).
 */
export class ConfluenceApi {
  private install: Promise<ConfluenceCredentials> | undefined;

  /** `loadInstall` is read once, on the first call (the install's secret is decrypted only when needed). */
  constructor(
    private readonly loadInstall: () => Promise<ConfluenceCredentials>,
    private readonly appKey = "",
  ) {}

  private resolve(): Promise<ConfluenceCredentials> {
    this.install ??= this.loadInstall();
    this.install.catch(() => (this.install = undefined));
    return this.install;
  }

  async siteUrl(): Promise<string> {
    return (await this.resolve()).baseUrl.replace(/\/+$/, "");
  }

  async request<T>(method: "GET" | "POST" | "PUT", path: string, opts: { query?: Record<string, string>; body?: unknown } = {}): Promise<T> {
    const qs = opts.query ? `?${new URLSearchParams(opts.query).toString()}` : "";
    const relative = `${path}${qs}`;
    const now = Math.floor(Date.now() / 1000);
    const install = await this.resolve();
    const authorization =
      "sharedSecret" in install
        ? `JWT ${encodeSymmetric({ iss: this.appKey, iat: now, exp: now + 180, qsh: connectQsh(method, relative) }, install.sharedSecret)}`
        : `Basic ${Buffer.from(`${install.email}:${install.apiToken}`).toString("base64")}`;
    const res = await fetch(`${install.baseUrl.replace(/\/+$/, "")}${relative}`, {
      method,
      headers: {
        authorization,
        accept: "application/json",
        ...(opts.body !== undefined ? { "content-type": "application/json" } : {}),
      },
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (!res.ok) throw new ConfluenceHttpError(res.status, `Confluence ${method} ${path}: HTTP ${res.status} ${confluenceMessage(text)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }
}

function confluenceMessage(text: string): string {
  try {
    const j = JSON.parse(text) as { message?: unknown };
    if (typeof j.message === "string") return j.message.slice(0, 300);
  } catch {
    // not JSON: fall through
  }
  return text.slice(0, 200);
}

export const confluenceStatus = (err: unknown) => (err instanceof ConfluenceHttpError ? err.status : undefined);

export function confluenceRefusal(err: unknown): string {
  if (!(err instanceof ConfluenceHttpError)) throw err;
  return httpFailureText("Confluence", err.status, err.message.slice(0, 300));
}
