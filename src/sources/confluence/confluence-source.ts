import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Env } from "../../config/env.js";
import { OpenSweError } from "../../errors.js";
import { SecretBox } from "../../store/secret-box.js";
import type { InboundRequest, Source, Verification } from "../source.js";
import { ConfluenceSourceClient } from "./confluence-client.js";
import { CONFLUENCE_WEBHOOK_PATH, CONNECT_DESCRIPTOR_PATH, CONNECT_INSTALLED_PATH, CONNECT_UNINSTALLED_PATH, connectDescriptor } from "./connect-descriptor.js";
import { connectToken, unverifiedIssuer, verifySymmetric, type InstallKeyFetcher } from "./connect-jwt.js";
import { cachedKeyFetcher, fetchAtlassianInstallKey } from "./install-keys.js";
import { ConnectInstalls } from "./install-store.js";
import { applyLifecycle, verifyLifecycle, type LifecycleOptions } from "./lifecycle.js";
import { parseConfluenceEvent } from "./parse-confluence-event.js";
import { ConnectTokenReplay } from "./token-replay.js";
import { missingEnv } from "../missing-env.js";

type ConfluenceEnv = Pick<Env, "APP_URL" | "OPEN_SWE_SECRET_KEY" | "OPEN_SWE_SECRET_KEY_PREVIOUS" | "CONFLUENCE_SITES" | "CONFLUENCE_APP_KEY" | "QUEUE_PREFIX" | "MENTION_HANDLES">;

export interface ConfluenceDeps {
  redis: Redis;
  /** Atlassian's install-key service by default (cached per kid); tests pass their own key. */
  fetchInstallKey?: InstallKeyFetcher;
}

/** Confluence through Atlassian Connect: descriptor, signed-install lifecycle, per-install JWT webhooks. */
/** `deps` null (no Redis to keep installs in): the source is built unconfigured. */
export function confluenceSource(env: ConfluenceEnv, deps: ConfluenceDeps | null): Source {
  const appUrl = env.APP_URL?.replace(/\/+$/, "");
  const configured = Boolean(deps && appUrl && env.OPEN_SWE_SECRET_KEY && env.CONFLUENCE_SITES.length > 0);
  const box = env.OPEN_SWE_SECRET_KEY ? new SecretBox(env.OPEN_SWE_SECRET_KEY, env.OPEN_SWE_SECRET_KEY_PREVIOUS ? [env.OPEN_SWE_SECRET_KEY_PREVIOUS] : []) : null;
  const installs = box && deps ? new ConnectInstalls(deps.redis, env.QUEUE_PREFIX, box) : null;
  const refused: Verification = { ok: false, reason: "Confluence is not configured (APP_URL, OPEN_SWE_SECRET_KEY, CONFLUENCE_SITES)" };
  const lifecycle: LifecycleOptions | null =
    configured && installs
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

  return {
    name: "confluence",
    configured,
    secretEnv: missingEnv({ APP_URL: appUrl, OPEN_SWE_SECRET_KEY: env.OPEN_SWE_SECRET_KEY, CONFLUENCE_SITES: env.CONFLUENCE_SITES.length > 0 ? "set" : undefined }),
    routes: [
      {
        method: "GET",
        path: CONNECT_DESCRIPTOR_PATH,
        signatureHeaders: [],
        verify: async () => (lifecycle ? { ok: true } : refused),
        parse: () => ({ kind: "respond", status: 200, body: connectDescriptor({ appUrl: appUrl!, key: env.CONFLUENCE_APP_KEY, name: "Open SWE" }) }),
      },
      {
        method: "POST",
        path: CONNECT_INSTALLED_PATH,
        signatureHeaders: ["authorization"],
        verify: (req) => (lifecycle ? verifyLifecycle(req, "installed", lifecycle) : Promise.resolve(refused)),
        parse: (req, v) => applyLifecycle(req, v, lifecycle!),
      },
      {
        method: "POST",
        path: CONNECT_UNINSTALLED_PATH,
        signatureHeaders: ["authorization"],
        verify: (req) => (lifecycle ? verifyLifecycle(req, "uninstalled", lifecycle) : Promise.resolve(refused)),
        parse: (req, v) => applyLifecycle(req, v, lifecycle!),
      },
      {
        method: "POST",
        path: CONFLUENCE_WEBHOOK_PATH,
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
      if (!configured || !installs) throw new OpenSweError("config_invalid", "Confluence is not configured");
      return new ConfluenceSourceClient(installs, { appKey: env.CONFLUENCE_APP_KEY, handles: env.MENTION_HANDLES, log });
    },
  };
}
