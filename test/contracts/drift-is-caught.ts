import { confluenceBody, jiraBody } from "./atlassian-contract.js";
import { slackBody } from "./slack-contract.js";
import type { AppMentionEvent } from "@slack/types";

/**
 * The compile-time contracts can fail: each line is a mock the vendor's published types reject, and
 * `npm run typecheck` (in `.ci/run`) fails if any of them stops being an error (an unused
 * `@ts-expect-error`). Never imported; it exists for the compiler.
 */
export function driftTheCompilerRejects(): unknown[] {
  return [
    // @ts-expect-error Slack's chat.postMessage answers `ts` as a string
    slackBody("chat.postMessage", { ok: true, ts: 1764590001 }),
    // @ts-expect-error users.info has no `mail` field (it is `profile.email`)
    slackBody("users.info", { ok: true, user: { id: "U1", mail: "a@example.com" } }),
    // @ts-expect-error an app_mention's text is a string
    { type: "app_mention", user: "U1", text: 7, ts: "1.0", channel: "C1", event_ts: "1.0" } satisfies AppMentionEvent,
    // @ts-expect-error a Jira comment's id is a string
    jiraBody("comment", { id: 10100 }),
    // @ts-expect-error Jira's issue has no `summary` at the top level (it is under `fields`)
    jiraBody("issue", { key: "ENG-1", summary: "s" }),
    // @ts-expect-error Confluence's content `version.number` is a number
    confluenceBody("content", { id: "1", version: { number: "5" } }),
  ];
}
