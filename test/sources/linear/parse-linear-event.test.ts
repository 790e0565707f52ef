import { describe, expect, it } from "vitest";
import { linearSettings } from "../../../src/sources/linear/linear-settings.js";
import { mentionsLinearApp } from "../../../src/sources/linear/linear-mention.js";
import { parseLinearEvent } from "../../../src/sources/linear/parse-linear-event.js";
import { linearSource } from "../../../src/sources/linear/index.js";
import { ALICE, APP_USER, commentEvent, ISSUE, issueEvent, linearEnv, linearRequest, TEAM } from "./linear-fixtures.js";

const settings = linearSettings(linearEnv());
const parse = (body: unknown, s = settings) => parseLinearEvent(body, s);

describe("mentionsLinearApp", () => {
  const handles = ["open-swe", "openswe"];
  const cases: Array<[string, boolean]> = [
    ["@open-swe fix it", true],
    ["hey @OpenSWE, fix it", true],
    ["fix it @open-swe", true],
    ["[@Open SWE](https://linear.app/acme/profiles/open-swe) fix it", true],
    ["cc @open-swe-preview", false],
    ["mail me at bob@open-swe", false],
    ["see https://example.com/@open-swe", false],
    ["`@open-swe` is the bot's name", false],
    ["> @open-swe fix it\n\nquoted above", false],
    ["```\n@open-swe fix\n```", false],
    ["https://linear.app/acme/profiles/open-swe-preview", false],
    ["no mention at all", false],
  ];
  it.each(cases)("%j → %s", (body, expected) => {
    expect(mentionsLinearApp(body, handles)).toBe(expected);
  });
  it("no handles, no mention", () => expect(mentionsLinearApp("@open-swe", [])).toBe(false));
});

describe("parseLinearEvent: comments", () => {
  it("a comment mentioning the app → one mention on the issue's thread", () => {
    expect(parse(commentEvent())).toEqual({
      kind: "mention",
      dedupeKey: "linear:webhook-0001:Comment:comment-0001:create",
      threadKey: `linear:${ISSUE}`,
      text: "@open-swe please fix the flaky login test",
      user: ALICE,
      ref: { issueId: ISSUE, teamId: TEAM, trigger: "comment", commentId: "comment-0001", parentId: "comment-0001" },
      repoDefaultKey: `linear:${TEAM}`,
    });
  });

  it("a reply in a thread answers under the thread's top comment", () => {
    const event = parse(commentEvent({ parentId: "comment-top" }));
    expect(event).toMatchObject({ kind: "mention", ref: { commentId: "comment-0001", parentId: "comment-top" } });
  });

  it("a team missing from the payload leaves the default repository to the worker", () => {
    const event = parse(commentEvent({ issue: { id: ISSUE, identifier: "ENG-1", title: "t", url: "u" } }));
    expect(event).toMatchObject({ kind: "mention" });
    expect(event).not.toHaveProperty("repoDefaultKey");
  });

  const ignored: Array<[string, unknown, RegExp, string?]> = [
    ["no mention", commentEvent({ body: "looks good to me" }), /^comment mentions none of @/],
    ["an edit", commentEvent({}, { action: "update" }), /comment update/],
    ["a removal", commentEvent({}, { action: "remove" }), /comment remove/],
    ["our own comment (user id)", commentEvent({ userId: APP_USER, user: { id: APP_USER, name: "Open SWE" } }), /our own/],
    ["our own comment (actor)", commentEvent({}, { actor: { id: APP_USER, name: "Open SWE", type: "user" } }), /our own/],
    ["a bot comment (botActor)", commentEvent({ botActor: '{"type":"integration","name":"GitHub"}' }), /bot/],
    ["an OAuth app's comment", commentEvent({}, { actor: { id: "oauth-1", name: "Some app", type: "OauthClient" } }), /bot/],
    ["an integration's comment", commentEvent({}, { actor: { id: "int-1", name: "Slack", type: "integration" } }), /bot/],
    ["a comment without a user (synced external user)", commentEvent({ userId: null, user: null, externalUserId: "ext-1" }), /without a Linear user/],
    ["a project update comment", commentEvent({ issueId: null, issue: null, projectUpdateId: "pu-1" }), /not on an issue/],
    ["a comment without a body", commentEvent({ body: undefined }), /without id or body/],
    ["no webhookId in the body", commentEvent({}, { webhookId: undefined }), /no webhookId/],
    ["a webhookId with odd characters", commentEvent({}, { webhookId: "a:b c" }), /not a Linear entity event/],
    ["another event type", { ...commentEvent(), type: "Reaction" }, /Reaction events are not handled/],
    ["not an entity event", { hello: "world" }, /not a Linear entity event/],
    ["a JSON array", [1, 2], /not a Linear entity event/],
  ];
  it.each(ignored)("ignores %s", (_name, body, reason) => {
    const event = parse(body);
    expect(event.kind).toBe("ignore");
    if (event.kind === "ignore") expect(event.reason).toMatch(reason);
  });

  it("without LINEAR_APP_USER_ID a mention still works and a self-check cannot match", () => {
    const s = linearSettings(linearEnv({ LINEAR_APP_USER_ID: "" }));
    expect(parse(commentEvent(), s)).toMatchObject({ kind: "mention" });
  });

  it("LINEAR_MENTION_HANDLES replaces the GitHub handles", () => {
    const s = linearSettings(linearEnv({ LINEAR_MENTION_HANDLES: "coder" }));
    expect(parse(commentEvent({ body: "@coder fix it" }), s)).toMatchObject({ kind: "mention" });
    expect(parse(commentEvent(), s)).toMatchObject({ kind: "ignore" });
  });
});

describe("parseLinearEvent: issues", () => {
  const label = { id: "label-swe", name: "Open-SWE", color: "#fff" };
  const mentions: Array<[string, unknown, Record<string, unknown>]> = [
    ["assigned to the app", issueEvent(), { trigger: "assigned" }],
    ["delegated to the app", issueEvent({ assigneeId: ALICE.id, delegateId: APP_USER }, { updatedFrom: { delegateId: null } }), { trigger: "assigned" }],
    ["created assigned to the app", issueEvent({}, { action: "create", updatedFrom: undefined }), { trigger: "assigned" }],
    ["labelled for the app (any case)", issueEvent({ assigneeId: null, labels: [label], labelIds: [label.id] }, { updatedFrom: { labelIds: [] } }), { trigger: "labelled", labelId: label.id }],
    ["created with the label", issueEvent({ assigneeId: null, labels: [label] }, { action: "create", updatedFrom: undefined }), { trigger: "labelled", labelId: label.id }],
  ];
  it.each(mentions)("%s → a mention on the issue's thread", (_name, body, ref) => {
    const event = parse(body);
    expect(event).toMatchObject({
      kind: "mention",
      dedupeKey: expect.stringMatching(new RegExp(`^linear:webhook-0001:Issue:${ISSUE}:(create|update:)`)),
      threadKey: `linear:${ISSUE}`,
      text: "Flaky login test\n\nIt fails one run in ten.",
      user: ALICE,
      ref: { issueId: ISSUE, teamId: TEAM, ...ref },
      repoDefaultKey: `linear:${TEAM}`,
    });
  });

  const ignored: Array<[string, unknown, RegExp]> = [
    ["an update that leaves the assignee alone", issueEvent({}, { updatedFrom: { title: "old" } }), /neither assigns/],
    ["re-assigning an issue already the app's", issueEvent({}, { updatedFrom: { assigneeId: APP_USER } }), /neither assigns/],
    ["assigned to someone else", issueEvent({ assigneeId: ALICE.id }), /neither assigns/],
    ["a label that was already there", issueEvent({ assigneeId: null, labels: [label] }, { updatedFrom: { labelIds: [label.id] } }), /neither assigns/],
    ["a label change that is not ours", issueEvent({ assigneeId: null, labels: [{ id: "l2", name: "bug" }] }, { updatedFrom: { labelIds: [] } }), /neither assigns/],
    ["our own change (we created it labelled)", issueEvent({}, { actor: { id: APP_USER, name: "Open SWE", type: "user" } }), /our own/],
    ["an integration's change", issueEvent({}, { actor: { id: "int-1", name: "GitHub", type: "integration" } }), /bot or integration/],
    ["no actor", issueEvent({}, { actor: undefined }), /without an actor/],
    ["a trashed issue", issueEvent({ trashed: true }), /archived or deleted/],
    ["an archived issue", issueEvent({ archivedAt: "2026-12-01T00:00:00.000Z" }), /archived or deleted/],
    ["a removal", issueEvent({}, { action: "remove" }), /issue remove/],
    ["an issue without a title", issueEvent({ title: undefined }), /without id or title/],
  ];
  it.each(ignored)("ignores %s", (_name, body, reason) => {
    const event = parse(body);
    expect(event.kind).toBe("ignore");
    if (event.kind === "ignore") expect(event.reason).toMatch(reason);
  });

  it("without LINEAR_APP_USER_ID an assignment cannot be ours (the label still works)", () => {
    const s = linearSettings(linearEnv({ LINEAR_APP_USER_ID: "" }));
    expect(parse(issueEvent(), s)).toMatchObject({ kind: "ignore" });
  });

  it("LINEAR_TRIGGER_LABEL names the label; TRIGGER_LABEL is the fallback", () => {
    const body = issueEvent({ assigneeId: null, labels: [{ id: "l-ai", name: "AI" }] }, { updatedFrom: { labelIds: [] } });
    expect(parse(body, linearSettings(linearEnv({ LINEAR_TRIGGER_LABEL: "ai" })))).toMatchObject({ kind: "mention" });
    expect(parse(body, linearSettings(linearEnv({ TRIGGER_LABEL: "AI" })))).toMatchObject({ kind: "mention" });
    expect(parse(body)).toMatchObject({ kind: "ignore" });
  });
});

describe("the route's parse", () => {
  const route = linearSource(linearEnv()).routes[0]!;
  it("keys on the signed body, whatever Linear-Delivery header came with it", async () => {
    const a = await route.parse(linearRequest(commentEvent(), { delivery: "d-42" }), { ok: true });
    const b = await route.parse(linearRequest(commentEvent(), { delivery: "d-43" }), { ok: true });
    const none = await route.parse(linearRequest(commentEvent(), { delivery: null }), { ok: true });
    expect(a).toMatchObject({ kind: "mention", dedupeKey: "linear:webhook-0001:Comment:comment-0001:create" });
    expect([b, none].map((e) => e.kind === "mention" && e.dedupeKey)).toEqual(["linear:webhook-0001:Comment:comment-0001:create", "linear:webhook-0001:Comment:comment-0001:create"]);
  });

  it.each([
    ["another comment", commentEvent({ id: "comment-0002" }), true],
    ["another webhook", commentEvent({}, { webhookId: "webhook-0002" }), true],
    ["the same issue updated again", issueEvent({ updatedAt: "2026-12-01T10:00:01.000Z" }), true],
    ["the same update redelivered", issueEvent({ updatedAt: "2026-12-01T10:00:00.000Z" }), false],
  ] as const)("%s is a different event: %s", async (_name, body, different) => {
    const base = body.type === "Issue" ? issueEvent({ updatedAt: "2026-12-01T10:00:00.000Z" }) : commentEvent();
    const key = (b: unknown) => {
      const e = parse(b);
      return e.kind === "mention" ? e.dedupeKey : e.kind;
    };
    expect(key(body) !== key(base)).toBe(different);
  });
  it("an unparsable body is ignored with a reason, not thrown", async () => {
    expect(await route.parse(linearRequest(null, { raw: "{" }), { ok: true })).toEqual({ kind: "ignore", reason: "body is not JSON" });
  });
});
