import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { join } from "node:path";
import type { Logger } from "pino";
import { z } from "zod";
import type { AppConfig } from "../config/env.js";
import { errorMessage } from "../errors.js";
import { readRawBody, sendJson } from "../http/raw-body.js";
import { createWebhookChannel, SMEE_NEW_CHANNEL_URL } from "../http/webhook-proxy.js";
import { updateEnvFile } from "./env-file.js";
import { buildManifest, readAppYml, webhookUrl } from "./manifest.js";
import { importPage, messagePage, setupPage } from "./setup-pages.js";
import { listen } from "../http/listen.js";

export interface SetupServer {
  port: number;
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
  slug: z.string().regex(/^[a-z0-9-]+$/, "the app's slug (the last part of its github.com/apps/… URL)").optional(),
});

const origin = (req: IncomingMessage) => {
  const proto = String(req.headers["x-forwarded-proto"] ?? "http").split(",")[0]!.trim();
  return `${proto === "https" ? "https" : "http"}://${req.headers["x-forwarded-host"] ?? req.headers.host ?? "localhost"}`;
};

const html = (res: ServerResponse, status: number, body: string) => {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "content-length": Buffer.byteLength(body) }).end(body);
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
      log.warn(
        { err: errorMessage(err) },
        "could not create a smee.io channel: set APP_URL to this app's public URL (or WEBHOOK_PROXY_URL to a channel) and restart",
      );
    }
  }
  const appYml = readAppYml(opts.appYmlPath);
  const githubWeb = `https://${env.GHE_HOST ?? "github.com"}`;
  const githubApi = config.github?.baseUrl ?? (env.GHE_HOST ? `https://${env.GHE_HOST}/api/v3` : "https://api.github.com");
  const hookFor = (req: IncomingMessage) => webhookUrl({ webhookProxyUrl: proxyUrl, appUrl: env.APP_URL, requestOrigin: origin(req) });
  const saved = (what: string) =>
    log.info(`${what} saved to .env: add ANTHROPIC_API_KEY to .env if it is not there, then restart (npm start)`);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const [path = "/", query = ""] = (req.url ?? "/").split("?");
    if (req.method === "GET" && path === "/health") {
      sendJson(res, 200, { status: "setup", role: "setup", detail: "no GitHub App credentials yet: finish the setup flow, then restart" });
      return;
    }
    if (req.method === "GET" && path === "/") {
      res.writeHead(302, { location: "/probot" }).end();
      return;
    }
    if (req.method === "GET" && path === "/probot") {
      const manifest = buildManifest(appYml, { hookUrl: hookFor(req), setupOrigin: env.APP_URL?.replace(/\/+$/, "") ?? origin(req) });
      html(res, 200, setupPage({ appYml, manifest, hookUrl: hookFor(req), createAppUrl: `${githubWeb}/settings/apps/new` }));
      return;
    }
    if (req.method === "GET" && path === "/probot/setup") {
      const code = new URLSearchParams(query).get("code");
      if (!code || !/^[A-Za-z0-9_-]{1,100}$/.test(code)) {
        html(res, 400, messagePage("Setup", "GitHub did not send a valid code: start again from /probot."));
        return;
      }
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
      saved(`GitHub App "${app.slug}" (id ${app.id}) registered;`);
      res.writeHead(302, { location: `${app.html_url}/installations/new` }).end();
      return;
    }
    if (req.method === "GET" && path === "/probot/import") {
      html(res, 200, importPage({ hookUrl: hookFor(req), appsUrl: `${githubWeb}/settings/apps` }));
      return;
    }
    if (req.method === "POST" && path === "/probot/import") {
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
      saved(`GitHub App ${appId} credentials`);
      sendJson(res, 200, { ok: true });
      return;
    }
    if (req.method === "GET" && path === "/probot/success") {
      html(res, 200, messagePage("Saved", "The credentials are in .env. Restart the app (npm start) to go live."));
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
  await listen(server, opts.port ?? env.PORT, opts.host ?? env.HOST, "PORT");
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const shown = env.APP_URL ?? `http://localhost:${port}`;
  log.info({ port, webhookUrl: proxyUrl ?? (env.APP_URL ? webhookUrl({ appUrl: env.APP_URL, requestOrigin: "" }) : undefined) }, `setup mode: no GitHub App credentials yet; open ${shown} to register the app`);
  return {
    port,
    webhookProxyUrl: proxyUrl,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
