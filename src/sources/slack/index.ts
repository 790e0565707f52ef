import { UnrecoverableError } from "bullmq";
import type { AppConfig } from "../../config/env.js";
import type { InboundRequest, Source } from "../source.js";
import { parseSlackEvent, parseSlackInteractivity } from "./events.js";
import { verifySlackSignature } from "./signature.js";
import { slackClient } from "./slack-client.js";

export const SLACK_EVENTS_PATH = "/webhooks/slack";
export const SLACK_INTERACTIVITY_PATH = "/webhooks/slack/interactivity";
const SLACK_SIGNATURE_HEADERS = ["x-slack-signature"] as const;

/** Slack: Events API and interactivity, both signed with the app's signing secret. */
export function slackSource(config: AppConfig): Source {
  const secret = config.env.SLACK_SIGNING_SECRET;
  const token = config.env.SLACK_BOT_TOKEN;
  const verify = async (req: InboundRequest) => (secret ? verifySlackSignature(secret, req.headers, req.rawBody, req.receivedAt) : { ok: false as const, reason: "SLACK_SIGNING_SECRET is not set" });
  return {
    name: "slack",
    configured: Boolean(secret),
    secretEnv: "SLACK_SIGNING_SECRET",
    routes: [
      { method: "POST", path: SLACK_EVENTS_PATH, signatureHeaders: SLACK_SIGNATURE_HEADERS, verify, parse: (req) => parseSlackEvent(req.rawBody) },
      { method: "POST", path: SLACK_INTERACTIVITY_PATH, signatureHeaders: SLACK_SIGNATURE_HEADERS, verify, parse: (req) => parseSlackInteractivity(req.rawBody) },
    ],
    client(log) {
      if (!token) throw new UnrecoverableError("SLACK_BOT_TOKEN is not set: Slack requests cannot be read or answered");
      return slackClient(token, log.child({ source: "slack" }), config.env.SLACK_API_URL);
    },
  };
}
