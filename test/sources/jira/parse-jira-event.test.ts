import { describe, expect, it } from "vitest";
import { parseJiraEvent } from "../../../src/sources/jira/parse-jira-event.js";
import { ALICE, BOT_ACCOUNT, SITE, adfBody, commentCreated, issueCreated } from "../../fixtures/jira/payloads.js";

const opts = { site: SITE, handles: ["open-swe", "openswe"] };
const parse = (payload: unknown) => parseJiraEvent(Buffer.from(typeof payload === "string" ? payload : JSON.stringify(payload)), opts);

describe("parseJiraEvent", () => {
  it("a comment mentioning an account is a mention on the issue's thread", () => {
    expect(parse(commentCreated())).toEqual({
      kind: "mention",
      dedupeKey: `jira:${SITE}:comment:10100`,
      threadKey: `jira:${SITE}:ENG-42`,
      repoDefaultKey: "jira:ENG",
      text: `[~accountid:${BOT_ACCOUNT}] please fix the login redirect`,
      user: { id: ALICE.accountId, name: ALICE.displayName, email: ALICE.emailAddress },
      ref: { kind: "comment", site: SITE, issueKey: "ENG-42", commentId: "10100" },
    });
  });

  it("the same comment redelivered has the same dedupe key", () => {
    const a = parse(commentCreated({ timestamp: 1 }));
    const b = parse(commentCreated({ timestamp: 2 }));
    expect(a.kind === "mention" && b.kind === "mention" && a.dedupeKey === b.dedupeKey).toBe(true);
  });

  it("a new issue with @open-swe in its description is a mention", () => {
    const e = parse(issueCreated());
    expect(e).toMatchObject({ kind: "mention", dedupeKey: `jira:${SITE}:issue:ENG-43:created`, threadKey: `jira:${SITE}:ENG-43`, ref: { kind: "issue", issueKey: "ENG-43" } });
    expect(e.kind === "mention" && e.text).toBe("Add a health endpoint\n\n@open-swe add GET /health returning 200");
  });

  const ignored: [string, unknown, string][] = [
    ["not JSON", "{nope", "body is not JSON"],
    ["no issue", { webhookEvent: "comment_created" }, "not a Jira issue or comment event (issue)"],
    ["a bad issue key", commentCreated({ issueKey: "../../x-1" }), "issue.key is not an issue key"],
    ["an issue from another site", commentCreated({ self: "https://evil.atlassian.net/rest/api/2/issue/1" }), "issue from another Jira site"],
    ["a comment that mentions no one", commentCreated({ body: "just a note about open-swe" }), "the comment mentions no one"],
    ["an email is not a mention", commentCreated({ body: "mail bob@open-swe" }), "the comment mentions no one"],
    ["a non-numeric comment id", commentCreated({ commentId: "10; DROP" }), "comment.id is not a Jira id"],
    ["an issue without a mention", issueCreated({ description: "plain" }), "the new issue mentions no one"],
    ["an event we do not act on", { ...commentCreated(), webhookEvent: "comment_updated" }, "event comment_updated is not acted on"],
  ];
  it.each(ignored)("ignores %s", (_n, payload, reason) => {
    expect(parse(payload)).toEqual({ kind: "ignore", reason });
  });

  it("reads mentions in ADF bodies too (Automation sends the v3 shape)", () => {
    expect(parse(commentCreated({ body: adfBody(BOT_ACCOUNT, "fix it") })).kind).toBe("mention");
    expect(parse(issueCreated({ description: adfBody(BOT_ACCOUNT, "x") })).kind).toBe("mention");
  });
});
