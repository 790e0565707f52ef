import type { Logger } from "pino";
import type { Env } from "../../config/env.js";
import { OpenSweError } from "../../errors.js";
import type { Source } from "../source.js";
import { createJiraApi } from "./jira-api.js";
import { JiraSourceClient } from "./jira-client.js";
import { hostOf } from "../atlassian/host-of.js";
import { parseJiraEvent } from "./parse-jira-event.js";
import { JIRA_SECRET_HEADER, verifyJiraRequest } from "./verify-jira-request.js";
import { missingEnv } from "../missing-env.js";

export const JIRA_WEBHOOK_PATH = "/webhooks/jira";

type JiraEnv = Pick<Env, "JIRA_BASE_URL" | "JIRA_EMAIL" | "JIRA_API_TOKEN" | "JIRA_WEBHOOK_SECRET" | "MENTION_HANDLES">;

/** Jira Cloud: one site, the bot account's API token; admin webhooks or Automation web requests in. */
export function jiraSource(env: JiraEnv): Source {
  const { JIRA_BASE_URL: baseUrl, JIRA_EMAIL: email, JIRA_API_TOKEN: apiToken, JIRA_WEBHOOK_SECRET: secret } = env;
  const site = baseUrl ? hostOf(baseUrl) : null;
  const configured = Boolean(site && email && apiToken && secret);
  return {
    name: "jira",
    configured,
    secretEnv: missingEnv({ JIRA_BASE_URL: site, JIRA_EMAIL: email, JIRA_API_TOKEN: apiToken, JIRA_WEBHOOK_SECRET: secret }),
    routes: [
      {
        method: "POST",
        path: JIRA_WEBHOOK_PATH,
        signatureHeaders: ["x-hub-signature", JIRA_SECRET_HEADER],
        verify: async (req) => (configured ? verifyJiraRequest(req, secret) : { ok: false, reason: "Jira is not configured (JIRA_BASE_URL, JIRA_EMAIL, JIRA_API_TOKEN, JIRA_WEBHOOK_SECRET)" }),
        parse: (req) => parseJiraEvent(req.rawBody, { site: site!, handles: env.MENTION_HANDLES }),
      },
    ],
    client(log: Logger) {
      if (!configured) throw new OpenSweError("config_invalid", "Jira is not configured");
      return new JiraSourceClient(createJiraApi({ baseUrl: baseUrl!, email: email!, apiToken: apiToken! }), { siteUrl: baseUrl!, handles: env.MENTION_HANDLES, log });
    },
  };
}
