import { describe, expect, it } from "vitest";
import { freshContent } from "../../../src/sources/confluence/confluence-client.js";
import { parseAutomationEvent } from "../../../src/sources/confluence/parse-automation-event.js";

const AT = new Date("2026-12-07T12:00:00Z");
const parse = (body: unknown) => parseAutomationEvent(Buffer.from(typeof body === "string" ? body : JSON.stringify(body)), { site: "acme.atlassian.net", receivedAt: AT });

describe("parseAutomationEvent (pure): only the ids, provisional until the re-read", () => {
  it("a comment: its id and the claimed page; its own thread; no space, author or text taken from the body", () => {
    expect(parse({ event: "comment_created", page: { id: "98305" }, comment: { id: 360449, body: "x" }, space: { key: "HR" }, author: "boss" })).toEqual({
      kind: "mention",
      dedupeKey: "confluence:acme.atlassian.net:comment:360449",
      threadKey: "confluence:acme.atlassian.net:98305:360449",
      text: "",
      user: { id: "unknown" },
      ref: { kind: "comment", site: "acme.atlassian.net", pageId: "98305", commentId: "360449", threadRoot: "360449", receivedAt: AT.getTime() },
    });
  });

  it("a page: its id", () => {
    expect(parse({ event: "page_created", page: { id: "98305" } })).toMatchObject({
      kind: "mention",
      dedupeKey: "confluence:acme.atlassian.net:page:98305:created",
      threadKey: "confluence:acme.atlassian.net:98305:page",
      ref: { kind: "page", site: "acme.atlassian.net", pageId: "98305" },
    });
  });

  it.each([
    ["not JSON (a smart value left the JSON broken)", '{"event":"comment_created","page":{"id":}}', /not JSON/],
    ["an empty smart value", { event: "comment_created", page: { id: "" }, comment: { id: "1" } }, /not a Confluence Automation request \(page\.id\)/],
    ["an id that is not a content id", { event: "comment_created", page: { id: "98305" }, comment: { id: "1/../2" } }, /comment\.id/],
    ["another event", { event: "page_updated", page: { id: "98305" } }, /event/],
    ["a comment without its page", { event: "comment_created", comment: { id: "1" } }, /without comment\.id and page\.id/],
    ["a page event without a page", { event: "page_created" }, /without page\.id/],
  ])("%s → ignored", (_name, body, reason) => {
    const e = parse(body);
    expect(e.kind).toBe("ignore");
    expect(e.kind === "ignore" ? e.reason : "").toMatch(reason);
  });
});

describe("freshContent (pure): content created within the hour before the request, 5 minutes ahead at most", () => {
  const at = AT.getTime();
  it.each([
    ["created a second before", "2026-12-07T11:59:59Z", at, true],
    ["created 59 minutes before", "2026-12-07T11:01:00Z", at, true],
    ["created 61 minutes before (a replay)", "2026-12-07T10:59:00Z", at, false],
    ["created 4 minutes after (clock skew)", "2026-12-07T12:04:00Z", at, true],
    ["created 6 minutes after", "2026-12-07T12:06:00Z", at, false],
    ["no creation date", undefined, at, false],
    ["no arrival time (a reference from before)", "2026-12-07T11:59:59Z", undefined, false],
  ])("%s → %s", (_name, created, receivedAt, fresh) => {
    expect(freshContent(created, receivedAt)).toBe(fresh);
  });
});
