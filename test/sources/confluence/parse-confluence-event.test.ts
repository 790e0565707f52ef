import { describe, expect, it } from "vitest";
import { parseConfluenceEvent } from "../../../src/sources/confluence/parse-confluence-event.js";
import { CLIENT_KEY, CONFLUENCE_BASE, SITE, commentCreated } from "../../fixtures/confluence/connect.js";

const install = { clientKey: CLIENT_KEY, baseUrl: CONFLUENCE_BASE };
const parse = (p: unknown) => parseConfluenceEvent(Buffer.from(typeof p === "string" ? p : JSON.stringify(p)), install);

describe("parseConfluenceEvent", () => {
  it("a new top-level comment: its own thread on the page", () => {
    expect(parse(commentCreated())).toEqual({
      kind: "mention",
      dedupeKey: `confluence:${CLIENT_KEY}:comment:360449`,
      threadKey: `confluence:${SITE}:98305:360449`,
      text: "",
      user: { id: "557058:alice" },
      ref: { kind: "comment", clientKey: CLIENT_KEY, pageId: "98305", commentId: "360449", threadRoot: "360449" },
    });
  });

  it("the body's space and thread claims are not taken (the token does not sign the body): the re-read decides", () => {
    const e = parse(commentCreated({ id: "360500", inReplyTo: "360449" }));
    expect(e).toMatchObject({ threadKey: `confluence:${SITE}:98305:360500`, ref: { commentId: "360500", threadRoot: "360500" } });
    expect(e).not.toHaveProperty("repoDefaultKey");
    expect(e.kind === "mention" && e.ref).not.toHaveProperty("spaceKey");
  });

  it("a new page is a page-level thread", () => {
    expect(parse({ userAccountId: "u", page: { id: "98400", spaceKey: "ENG", self: `${CONFLUENCE_BASE}/x` } })).toMatchObject({
      kind: "mention",
      dedupeKey: `confluence:${CLIENT_KEY}:page:98400:created`,
      threadKey: `confluence:${SITE}:98400:page`,
      ref: { kind: "page", pageId: "98400" },
    });
  });

  it.each([
    ["not JSON", "nope", "body is not JSON"],
    ["a non-numeric content id", { comment: { id: "../1", parent: { id: 1 } } }, "not a comment or page event (comment.id)"],
    ["content from another site", commentCreated({ self: "https://evil.atlassian.net/wiki/x" }), "content from another site"],
    ["neither", { space: { key: "X" } }, "neither a comment nor a page"],
  ])("ignores %s", (_n, p, reason) => {
    expect(parse(p)).toEqual({ kind: "ignore", reason });
  });
});
