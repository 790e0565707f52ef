import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { join } from "node:path";
import type { Logger } from "pino";
import { z } from "zod";
import type { AppConfig } from "../config/env.js";
import { errorMessage } from "../errors.js";
import { readRawBody, sendJson } from "../net/raw-body.js";
import { createWebhookChannel, SMEE_NEW_CHANNEL_URL } from "../net/webhook-proxy.js";
import { updateEnvFile } from "./env-file.js";
import { keepSetupInstallation } from "./setup-installations.js";
import { buildManifest, readAppYml, WEBHOOK_PATH, webhookUrl } from "./manifest.js";
import { crossSiteWrite, parseCookies, setupHostAllowed } from "./setup-guard.js";
import { importPage, messagePage, setupPage } from "./setup-pages.js";
import { listen } from "../net/listen.js";
import { SetupTokens } from "./setup-tokens.js";

export interface SetupServer {
  port: number;
  /** The address it listens on (SETUP_HOST, loopback by default). */
  address: string;
  /** The smee channel this flow created (and wrote to .env), if any. */
  webhookProxyUrl: string | undefined;
  stop(): Promise<void>;
}

export interface SetupServerOptions {
  config: AppConfig;
  log: Logger;
  /** Where `.env` is written (the working directory). */
  cwd: string;
  port?: number;
  host?: string;
  appYmlPath?: string;
  newChannelUrl?: string;
}

/** `POST /app-manifests/{code}/conversions` answer: the new app and its credentials (only what we keep). */
const Conversion = z.object({
  id: z.number().int().positive(),
  slug: z.string().regex(/^[a-z0-9-]+$/),
  html_url: z.url(),
  pem: z.string().includes("PRIVATE KEY"),
  webhook_secret: z.string().min(1),
  /** The app's OAuth client: the dashboard's sign-in and "open PRs as me". */
  client_id: z.string().min(1).optional(),
  client_secret: z.string().min(1).optional(),
});

const ImportBody = z.object({
  appId: z.string().regex(/^\d+$/, "the numeric App ID"),
  pem: z.string().includes("PRIVATE KEY", { message: "a PEM private key" }),
  webhook_secret: z.string().min(1, "the webhook secret"),
  slug: z
    .string()
    .regex(/^[a-z0-9-]+$/, "the app's slug (the last part of its github.com/apps/… URL)")
    .optional(),
});

const origin = (req: IncomingMessage) => {
  const proto = String(req.headers["x-forwarded-proto"] ?? "http")
    .split(",")[0]!
    .trim();
  return `${proto === "https" ? "https" : "http"}://${req.headers["x-forwarded-host"] ?? req.headers.host ?? "localhost"}`;
};

/** The manifest flow's `state` (GitHub sends it back on the redirect: a cross-site GET, so Lax) and the import form's CSRF token. */
const STATE_COOKIE = "osw_setup_state";
const CSRF_COOKIE = "osw_setup_csrf";
const CSRF_HEADER = "x-setup-csrf";
const cookie = (name: string, value: string, sameSite: "Lax" | "Strict", maxAge = 3600) => `${name}=${value}; Path=/probot; HttpOnly; SameSite=${sameSite}; Max-Age=${maxAge}`;

// Never framed, never cached, no Referer: the pages carry the webhook URL and set-up tokens.
const PAGE_HEADERS = { "cache-control": "no-store", "x-frame-options": "DENY", "content-security-policy": "frame-ancestors 'none'", "referrer-policy": "no-referrer" };

const html = (res: ServerResponse, status: number, body: string, headers: Record<string, string | string[]> = {}) => {
  res.writeHead(status, { ...PAGE_HEADERS, ...headers, "content-type": "text/html; charset=utf-8", "content-length": Buffer.byteLength(body) }).end(body);
};

/**
 * Setup mode (no app credentials yet): GitHub's manifest flow. Registering posts app.yml plus this
 * deployment's webhook URL to GitHub; GitHub redirects back with a code that we convert into the app's
 * id, key, secret and slug, written to `.env` (0600). `/health` answers so a supervisor sees the process.
 */
export async function startSetupServer(opts: SetupServerOptions): Promise<SetupServer> {
  const { config, log } = opts;
  const env = config.env;
  const envPath = join(opts.cwd, ".env");
  let proxyUrl = env.WEBHOOK_PROXY_URL;
  if (!proxyUrl && !env.APP_URL && !env.NO_SMEE_SETUP) {
    try {
      proxyUrl = await createWebhookChannel(opts.newChannelUrl ?? SMEE_NEW_CHANNEL_URL);
      updateEnvFile(envPath, { WEBHOOK_PROXY_URL: proxyUrl });
      log.info({ webhookProxyUrl: proxyUrl }, "created a smee.io channel for webhooks and saved it to .env as WEBHOOK_PROXY_URL");
    } catch (err) {
      log.warn({ err: errorMessage(err) }, "could not create a smee.io channel: set APP_URL to this app's public URL (or WEBHOOK_PROXY_URL to a channel) and restart");
    }
  }
  const appYml = readAppYml(opts.appYmlPath);
  const githubWeb = `https://${env.GHE_HOST ?? "github.com"}`;
  const githubApi = config.github?.baseUrl ?? (env.GHE_HOST ? `https://${env.GHE_HOST}/api/v3` : "https://api.github.com");
  const hookFor = (req: IncomingMessage) => webhookUrl({ webhookProxyUrl: proxyUrl, appUrl: env.APP_URL, requestOrigin: origin(req) });
  const states = new SetupTokens();
  const csrfTokens = new SetupTokens();
  const ownOrigins = (req: IncomingMessage) =>
    [`http://${req.headers.host ?? ""}`, `https://${req.headers.host ?? ""}`, ...(env.APP_URL ? [new URL(env.APP_URL).origin] : [])].map((o) => o.toLowerCase());
  // Known once the app is registered here: installation events are accepted from then on.
  let webhookSecret: string | undefined;
  const saved = (what: string) => log.info(`${what} saved to .env: add ANTHROPIC_API_KEY to .env if it is not there, then restart (npm start)`);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const [path = "/", query = ""] = (req.url ?? "/").split("?");
    if (req.method === "GET" && (path === "/health" || path === "/livez" || path === "/readyz")) {
      sendJson(res, 200, { status: "setup", role: "setup", detail: "no GitHub App credentials yet: finish the setup flow, then restart" });
      return;
    }
    // DNS rebinding: a page elsewhere whose name now resolves to this address must read nothing here.
    if (!setupHostAllowed(req.headers.host, { appUrl: env.APP_URL, setupHost: env.SETUP_HOST })) {
      html(res, 421, messagePage("Wrong address", "The setup page answers only at localhost, this machine's IP address, or APP_URL."));
      return;
    }
    const cookies = parseCookies(req.headers.cookie);
    if (req.method === "GET" && path === "/") {
      res.writeHead(302, { location: "/probot" }).end();
      return;
    }
    if (req.method === "GET" && path === "/probot") {
      const manifest = buildManifest(appYml, { hookUrl: hookFor(req), setupOrigin: env.APP_URL?.replace(/\/+$/, "") ?? origin(req) });
      const state = states.issue();
      const createAppUrl = `${githubWeb}/settings/apps/new?state=${state}`;
      html(res, 200, setupPage({ appYml, manifest, hookUrl: hookFor(req), createAppUrl }), { "set-cookie": cookie(STATE_COOKIE, state, "Lax") });
      return;
    }
    if (req.method === "GET" && path === "/probot/setup") {
      const params = new URLSearchParams(query);
      const code = params.get("code");
      if (!code || !/^[A-Za-z0-9_-]{1,100}$/.test(code)) {
        html(res, 400, messagePage("Setup", "GitHub did not send a valid code: start again from /probot."));
        return;
      }
      // Only a registration this browser started here (its `state`, GitHub echoes it) may write .env.
      const state = params.get("state");
      if (!states.matches(state, cookies.get(STATE_COOKIE))) {
        log.warn("manifest code refused: its state is missing or not one this browser was given");
        html(
          res,
          400,
          messagePage("Setup refused", "This code does not come from a registration started in this browser (its state is missing or does not match). Nothing was saved: start again from /probot."),
        );
        return;
      }
      states.consume(state!);
      let app: z.infer<typeof Conversion>;
      try {
        const r = await fetch(`${githubApi}/app-manifests/${code}/conversions`, {
          method: "POST",
          headers: { accept: "application/vnd.github+json", "user-agent": "open-swe-setup" },
          signal: AbortSignal.timeout(30_000),
        });
        if (!r.ok) throw new Error(`GitHub answered ${r.status} to the manifest conversion (codes expire after an hour and work once)`);
        app = Conversion.parse(await r.json());
      } catch (err) {
        log.warn({ err: errorMessage(err) }, "manifest conversion failed");
        html(res, 502, messagePage("Setup failed", `${errorMessage(err)}. Start again from /probot.`));
        return;
      }
      updateEnvFile(envPath, {
        APP_ID: String(app.id),
        APP_SLUG: app.slug,
        PRIVATE_KEY: app.pem,
        WEBHOOK_SECRET: app.webhook_secret,
        ...(app.client_id && app.client_secret ? { GITHUB_CLIENT_ID: app.client_id, GITHUB_CLIENT_SECRET: app.client_secret } : {}),
      });
      webhookSecret = app.webhook_secret;
      saved(`GitHub App "${app.slug}" (id ${app.id}) registered;`);
      res.writeHead(302, { location: `${app.html_url}/installations/new`, "set-cookie": cookie(STATE_COOKIE, "", "Lax", 0) }).end();
      return;
    }
    if (req.method === "GET" && path === "/probot/import") {
      const csrf = csrfTokens.issue();
      html(res, 200, importPage({ hookUrl: hookFor(req), appsUrl: `${githubWeb}/settings/apps`, csrf }), { "set-cookie": cookie(CSRF_COOKIE, csrf, "Strict") });
      return;
    }
    if (req.method === "POST" && path === "/probot/import") {
      // Decided on the headers alone, before the body is read.
      const crossSite = crossSiteWrite({ contentType: req.headers["content-type"], origin: req.headers.origin, secFetchSite: req.headers["sec-fetch-site"] as string | undefined }, ownOrigins(req));
      const csrf = req.headers[CSRF_HEADER];
      const refusal =
        crossSite ??
        (csrfTokens.matches(typeof csrf === "string" ? csrf : null, cookies.get(CSRF_COOKIE)) ? null : { status: 403, reason: "missing or stale setup token: reload /probot/import and submit again" });
      if (refusal) {
        log.warn({ reason: refusal.reason }, "setup import refused");
        res.setHeader("connection", "close");
        sendJson(res, refusal.status, { error: refusal.reason });
        return;
      }
      const body = await readRawBody(req, 64 * 1024);
      if (!body.ok) {
        sendJson(res, body.status, { error: body.reason });
        return;
      }
      let json: unknown;
      try {
        json = JSON.parse(body.body);
      } catch {
        sendJson(res, 400, { error: "the body is not JSON" });
        return;
      }
      const parsed = ImportBody.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        sendJson(res, 400, { error: `${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}` });
        return;
      }
      const { appId, pem, webhook_secret, slug } = parsed.data;
      updateEnvFile(envPath, { APP_ID: appId, PRIVATE_KEY: pem, WEBHOOK_SECRET: webhook_secret, ...(slug ? { APP_SLUG: slug } : {}) });
      webhookSecret = webhook_secret;
      saved(`GitHub App ${appId} credentials`);
      sendJson(res, 200, { ok: true });
      return;
    }
    if (req.method === "GET" && path === "/probot/success") {
      html(res, 200, messagePage("Saved", "The credentials are in .env. Restart the app (npm start) to go live."));
      return;
    }
    if (req.method === "POST" && path === WEBHOOK_PATH && webhookSecret) {
      const body = await readRawBody(req, env.MAX_WEBHOOK_BYTES);
      if (!body.ok) {
        sendJson(res, body.status, { error: body.reason });
        return;
      }
      const answer = await keepSetupInstallation({ headers: req.headers, body: body.body, secret: webhookSecret, dataDir: config.dataDir, log });
      sendJson(res, answer.status, answer.body);
      return;
    }
    sendJson(res, 404, { error: `no route for ${req.method} ${path} in setup mode` });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.error({ err: errorMessage(err) }, "setup request failed");
      if (!res.headersSent) sendJson(res, 500, { error: "setup request failed; see the app's log" });
    });
  });
  await listen(server, opts.port ?? env.PORT, opts.host ?? env.SETUP_HOST, "PORT");
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const boundTo = typeof address === "object" && address ? address.address : "";
  const shown = env.APP_URL ?? `http://localhost:${port}`;
  log.info(
    { port, webhookUrl: proxyUrl ?? (env.APP_URL ? webhookUrl({ appUrl: env.APP_URL, requestOrigin: "" }) : undefined) },
    `setup mode: no GitHub App credentials yet; open ${shown} to register the app`,
  );
  return {
    port,
    address: boundTo,
    webhookProxyUrl: proxyUrl,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
