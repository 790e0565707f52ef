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

/** Confluence REST (v1) as the Connect app: each call signed with a fresh JWT (iss = app key, qsh of the call). */
export class ConfluenceApi {
  private install: Promise<ConnectInstall> | undefined;

  /** `loadInstall` is read once, on the first call (the install's secret is decrypted only when needed). */
  constructor(
    private readonly loadInstall: () => Promise<ConnectInstall>,
    private readonly appKey: string,
  ) {}

  private resolve(): Promise<ConnectInstall> {
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
    const token = encodeSymmetric({ iss: this.appKey, iat: now, exp: now + 180, qsh: connectQsh(method, relative) }, install.sharedSecret);
    const res = await fetch(`${install.baseUrl.replace(/\/+$/, "")}${relative}`, {
      method,
      headers: {
        authorization: `JWT ${token}`,
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
