export const CONNECT_DESCRIPTOR_PATH = "/connect/atlassian-connect.json";
export const CONNECT_INSTALLED_PATH = "/connect/installed";
export const CONNECT_UNINSTALLED_PATH = "/connect/uninstalled";
export const CONFLUENCE_WEBHOOK_PATH = "/webhooks/confluence";

/** The events we subscribe to; the worker decides on the re-read text whether the app was asked. */
export const CONFLUENCE_EVENTS = ["comment_created", "page_created"] as const;

/** The Atlassian Connect app descriptor Confluence installs from (pure). */
export function connectDescriptor(o: { appUrl: string; key: string; name: string }) {
  return {
    key: o.key,
    name: o.name,
    description: "Mention the app in a Confluence comment to hand a coding task to Open SWE.",
    vendor: { name: "Open SWE", url: o.appUrl },
    baseUrl: o.appUrl.replace(/\/+$/, ""),
    authentication: { type: "jwt" },
    // signed-install: lifecycle callbacks are RS256-signed by Atlassian, not by the (new) shared secret.
    apiMigrations: { "signed-install": true },
    lifecycle: { installed: CONNECT_INSTALLED_PATH, uninstalled: CONNECT_UNINSTALLED_PATH },
    scopes: ["READ", "WRITE"],
    modules: { webhooks: CONFLUENCE_EVENTS.map((event) => ({ event, url: CONFLUENCE_WEBHOOK_PATH })) },
  };
}
