import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { WEBHOOK_PATH } from "../net/webhook-proxy.js";

export { WEBHOOK_PATH };

/** app.yml next to package.json (src/setup/ in a checkout, dist/src/setup/ in an image). */
export const APP_YML_PATH =
  ["../../app.yml", "../../../app.yml"].map((rel) => fileURLToPath(new URL(rel, import.meta.url))).find((p) => existsSync(p)) ?? fileURLToPath(new URL("../../app.yml", import.meta.url));

export function readAppYml(path = APP_YML_PATH): Record<string, unknown> {
  const doc: unknown = parse(readFileSync(path, "utf8"));
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) throw new Error(`${path} is not a YAML mapping`);
  return doc as Record<string, unknown>;
}

/**
 * Where GitHub should post webhooks: the smee channel itself (the app relays it to its own endpoint),
 * else the public URL's webhook path, else this setup page's own origin's webhook path.
 */
export function webhookUrl(o: { webhookProxyUrl?: string | undefined; appUrl?: string | undefined; requestOrigin: string }): string {
  if (o.webhookProxyUrl) return o.webhookProxyUrl;
  return `${(o.appUrl ?? o.requestOrigin).replace(/\/+$/, "")}${WEBHOOK_PATH}`;
}

/** The manifest the "Register GitHub App" button posts to GitHub: app.yml plus the URLs of this deployment. */
export function buildManifest(appYml: Record<string, unknown>, o: { hookUrl: string; setupOrigin: string }): Record<string, unknown> {
  return {
    url: "https://github.com/open-swe/open-swe-ts",
    public: false,
    ...appYml,
    hook_attributes: { url: o.hookUrl, active: true },
    redirect_url: `${o.setupOrigin}/probot/setup`,
    // The dashboard's GitHub sign-in (the app's own OAuth client) returns here.
    callback_urls: [`${o.setupOrigin}/auth/callback`],
  };
}
