import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Env } from "../../config/env.js";
import { OpenSweError } from "../../errors.js";
import { SecretBox } from "../../store/secret-box.js";
import type { InboundRequest, Source, Verification } from "../source.js";
import { ConfluenceSourceClient, type ConfluenceTokenSite } from "./confluence-client.js";
import { hostOf } from "../atlassian/host-of.js";
import { verifyAtlassianWebRequest } from "../atlassian/verify-web-request.js";
import { parseAutomationEvent } from "./parse-automation-event.js";
import { CONFLUENCE_WEBHOOK_PATH, CONNECT_DESCRIPTOR_PATH, CONNECT_INSTALLED_PATH, CONNECT_UNINSTALLED_PATH, connectDescriptor } from "./connect-descriptor.js";
import { connectToken, unverifiedIssuer, verifySymmetric, type InstallKeyFetcher } from "./connect-jwt.js";
import { cachedKeyFetcher, fetchAtlassianInstallKey } from "./install-keys.js";
import { ConnectInstalls } from "./install-store.js";
import { applyLifecycle, verifyLifecycle, type LifecycleOptions } from "./lifecycle.js";
import { parseConfluenceEvent } from "./parse-confluence-event.js";
import { ConnectTokenReplay } from "./token-replay.js";
import { missingEnv } from "../missing-env.js";

type ConfluenceEnv = Pick<
  Env,
  | "APP_URL"
  | "OPEN_SWE_SECRET_KEY"
  | "OPEN_SWE_SECRET_KEY_PREVIOUS"
  | "CONFLUENCE_SITES"
  | "CONFLUENCE_APP_KEY"
  | "CONFLUENCE_BASE_URL"
  | "CONFLUENCE_EMAIL"
  | "CONFLUENCE_API_TOKEN"
  | "CONFLUENCE_WEBHOOK_SECRET"
  | "QUEUE_PREFIX"
  | "MENTION_HANDLES"
>;

export interface ConfluenceDeps {
  redis: Redis;
  /** Atlassian's install-key service by default (cached per kid); tests pass their own key. */
  fetchInstallKey?: InstallKeyFetcher;
}

/**
 * Confluence, two ways in, one source (identities, thread keys, space defaults and tools shared):
 * - Automation (no Connect app): a rule's "Send web request" to `CONFLUENCE_AUTOMATION_PATH`, verified with
 *   `CONFLUENCE_WEBHOOK_SECRET`; the worker re-reads and replies with `CONFLUENCE_EMAIL` + `CONFLUENCE_API_TOKEN`.
 * - Atlassian Connect (until its end of support, see `CONNECT_END_OF_SUPPORT`): descriptor, signed-install
 *   lifecycle, per-install JWT webhooks. `deps` null (no Redis to keep installs in): Connect is off.
 */
export function confluenceSource(env: ConfluenceEnv, deps: ConfluenceDeps | null): Source {
  const appUrl = env.APP_URL?.replace(/\/+$/, "");
  const connectConfigured = Boolean(deps && appUrl && env.OPEN_SWE_SECRET_KEY && env.CONFLUENCE_SITES.length > 0);
  const token = automationToken(env);
  const automationConfigured = Boolean(token && env.CONFLUENCE_WEBHOOK_SECRET);
  const configured = connectConfigured || automationConfigured;
  const box = env.OPEN_SWE_SECRET_KEY ? new SecretBox(env.OPEN_SWE_SECRET_KEY, env.OPEN_SWE_SECRET_KEY_PREVIOUS ? [env.OPEN_SWE_SECRET_KEY_PREVIOUS] : []) : null;
  const installs = box && deps ? new ConnectInstalls(deps.redis, env.QUEUE_PREFIX, box) : null;
  const refused: Verification = { ok: false, reason: "Confluence is not configured (APP_URL, OPEN_SWE_SECRET_KEY, CONFLUENCE_SITES)" };
  const lifecycle: LifecycleOptions | null =
    connectConfigured && installs
      ? {
          appUrl: appUrl!,
          appKey: env.CONFLUENCE_APP_KEY,
          allowedSites: env.CONFLUENCE_SITES,
          fetchInstallKey: cachedKeyFetcher(deps?.fetchInstallKey ?? fetchAtlassianInstallKey),
          installs,
          replay: new ConnectTokenReplay(deps!.redis, env.QUEUE_PREFIX),
        }
      : null;

  const verifyWebhook = async (req: InboundRequest): Promise<Verification> => {
    if (!lifecycle) return refused;
    const token = connectToken(req);
    if (!token) return { ok: false, reason: "no Authorization: JWT header" };
    const iss = unverifiedIssuer(token);
    if (!iss) return { ok: false, reason: "token unreadable or not HS256" };
    const install = await lifecycle.installs.get(iss).catch(() => null);
    if (!install) return { ok: false, reason: "no install for the token's iss" };
    const checked = verifySymmetric(token, install.sharedSecret, req, lifecycle.appUrl);
    if (!checked.ok) return checked;
    if (!(await lifecycle.replay.firstUse(token, checked.claims.exp, req.receivedAt))) return { ok: false, reason: "Connect token already used" };
    return { ok: true, installKey: install.clientKey };
  };

  const automationRefused = `Confluence Automation is not configured (${AUTOMATION_ENV.join(", ")})`;

  return {
    name: "confluence",
    configured,
    // Connect asked for (its sites listed): what it lacks; else what the Automation path lacks.
    secretEnv:
      env.CONFLUENCE_SITES.length > 0
        ? missingEnv({ APP_URL: appUrl, OPEN_SWE_SECRET_KEY: env.OPEN_SWE_SECRET_KEY })
        : missingEnv({
            CONFLUENCE_BASE_URL: token?.site,
            CONFLUENCE_EMAIL: env.CONFLUENCE_EMAIL,
            CONFLUENCE_API_TOKEN: env.CONFLUENCE_API_TOKEN,
            CONFLUENCE_WEBHOOK_SECRET: env.CONFLUENCE_WEBHOOK_SECRET,
          }),
    ...(connectConfigured ? { warning: { key: "CONFLUENCE_SITES", message: CONNECT_RETIREMENT_WARNING } } : {}),
    routes: [
      {
        method: "POST",
        path: CONFLUENCE_AUTOMATION_PATH,
        configured: automationConfigured,
        explainRefusal: true,
        signatureHeaders: ["x-hub-signature", CONFLUENCE_SECRET_HEADER],
        verify: async (req) =>
          automationConfigured
            ? verifyAtlassianWebRequest(req, env.CONFLUENCE_WEBHOOK_SECRET, { secretHeader: CONFLUENCE_SECRET_HEADER, secretEnv: "CONFLUENCE_WEBHOOK_SECRET" })
            : { ok: false, reason: automationRefused },
        parse: (req) => parseAutomationEvent(req.rawBody, { site: token!.site, receivedAt: req.receivedAt }),
      },
      {
        method: "GET",
        path: CONNECT_DESCRIPTOR_PATH,
        configured: connectConfigured,
        signatureHeaders: [],
        verify: async () => (lifecycle ? { ok: true } : refused),
        parse: () => ({ kind: "respond", status: 200, body: connectDescriptor({ appUrl: appUrl!, key: env.CONFLUENCE_APP_KEY, name: "Open SWE" }) }),
      },
      {
        method: "POST",
        path: CONNECT_INSTALLED_PATH,
        configured: connectConfigured,
        signatureHeaders: ["authorization"],
        verify: (req) => (lifecycle ? verifyLifecycle(req, "installed", lifecycle) : Promise.resolve(refused)),
        parse: (req, v) => applyLifecycle(req, v, lifecycle!),
      },
      {
        method: "POST",
        path: CONNECT_UNINSTALLED_PATH,
        configured: connectConfigured,
        signatureHeaders: ["authorization"],
        verify: (req) => (lifecycle ? verifyLifecycle(req, "uninstalled", lifecycle) : Promise.resolve(refused)),
        parse: (req, v) => applyLifecycle(req, v, lifecycle!),
      },
      {
        method: "POST",
        path: CONFLUENCE_WEBHOOK_PATH,
        configured: connectConfigured,
        signatureHeaders: ["authorization"],
        verify: verifyWebhook,
        parse: async (req, v) => {
          const install = v.installKey ? await lifecycle!.installs.get(v.installKey) : null;
          if (!install) return { kind: "ignore", reason: "the install is gone" };
          return parseConfluenceEvent(req.rawBody, install);
        },
      },
    ],
    client(log: Logger) {
      if (!configured) throw new OpenSweError("config_invalid", "Confluence is not configured");
      return new ConfluenceSourceClient(
        { installs: connectConfigured ? installs : null, token: automationConfigured ? token : null },
        { appKey: env.CONFLUENCE_APP_KEY, handles: env.MENTION_HANDLES, log },
      );
    },
  };
}

/** Where a Confluence Automation rule's "Send web request" posts. */
export const CONFLUENCE_AUTOMATION_PATH = "/webhooks/confluence/automation";
/** The header the rule carries the shared secret in (the same name as Jira's). */
export const CONFLUENCE_SECRET_HEADER = "x-open-swe-webhook-secret";
/** Atlassian Connect's end of support: its routes keep working until then, for installs that have not moved yet. */
export const CONNECT_END_OF_SUPPORT = "2026-12-31";
const AUTOMATION_ENV = ["CONFLUENCE_BASE_URL", "CONFLUENCE_EMAIL", "CONFLUENCE_API_TOKEN", "CONFLUENCE_WEBHOOK_SECRET"];

/** The start-up warning of a deployment that still serves the Connect app (one line). */
export const CONNECT_RETIREMENT_WARNING =
  `Confluence runs through Atlassian Connect (CONFLUENCE_SITES), whose support ends ${CONNECT_END_OF_SUPPORT}, after which it may stop without notice: ` +
  `set ${AUTOMATION_ENV.join(", ")}, create the Automation rule that posts to <APP_URL>${CONFLUENCE_AUTOMATION_PATH} (README, From Confluence), ` +
  "then uninstall the Connect app and unset CONFLUENCE_SITES";

/** The API token's site (`/wiki` added to a bare site URL); null without the base URL, the email or the token. */
function automationToken(env: ConfluenceEnv): ConfluenceTokenSite | null {
  if (!env.CONFLUENCE_BASE_URL || !env.CONFLUENCE_EMAIL || !env.CONFLUENCE_API_TOKEN) return null;
  const url = new URL(env.CONFLUENCE_BASE_URL);
  const site = hostOf(url.href);
  if (!site) return null;
  const path = url.pathname.replace(/\/+$/, "");
  const baseUrl = `${url.origin}${path === "" ? "/wiki" : path}`;
  return { site, baseUrl, email: env.CONFLUENCE_EMAIL, apiToken: env.CONFLUENCE_API_TOKEN };
}
