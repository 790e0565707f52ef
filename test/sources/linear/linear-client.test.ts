import { describe, expect, it } from "vitest";
import { LinearApiError } from "../../../src/sources/linear/linear-api.js";
import { linearSource } from "../../../src/sources/linear/index.js";
import { ALICE, APP_USER, ISSUE, linearEnv, TEAM } from "./linear-fixtures.js";
import { capturedLogger, INTERNAL_ERROR, mockLinear, notFound, type GraphqlCall } from "./linear-nock.js";

const commentRef = { issueId: ISSUE, teamId: TEAM, trigger: "comment", commentId: "c-2", parentId: "c-1" };
const { log, lines } = capturedLogger();
const client = () => linearSource(linearEnv()).client(log);

const issueContext = {
  id: ISSUE,
  identifier: "ENG-1",
  title: "Flaky login test",
  description: "It fails one run in ten.",
  url: "https://linear.app/acme/issue/ENG-1",
  comments: {
    nodes: [
      { id: "c-3", body: "later remark", createdAt: "2026-12-01T10:05:00.000Z", user: { name: "Bob" }, botActor: null },
      { id: "c-1", body: "I see it on CI too", createdAt: "2026-12-01T09:00:00.000Z", user: { name: "Bob" }, botActor: null },
      { id: "c-2", body: "@open-swe fix it", createdAt: "2026-12-01T10:00:00.000Z", user: { name: "Alice" }, botActor: null },
    ],
  },
};

describe("Linear client: fetchMessage", () => {
  it("re-reads the comment: its text, its author with email, and the issue with the comments before it", async () => {
    const calls: GraphqlCall[] = [];
    mockLinear(
      "OpenSweLinearComment",
      { data: { viewer: { id: APP_USER }, comment: { id: "c-2", body: "@open-swe fix it (edited)", createdAt: "2026-12-01T10:00:00.000Z", user: ALICE, botActor: null, issue: issueContext } } },
      { calls },
    );
    const message = await client().fetchMessage(commentRef);
    expect(calls[0]!.variables).toEqual({ id: "c-2" });
    expect(message).toMatchObject({ text: "@open-swe fix it (edited)", user: ALICE });
    expect(message!.context).toContain("Linear issue ENG-1: Flaky login test");
    expect(message!.context).toContain("Bob: I see it on CI too");
    expect(message!.context).not.toContain("later remark");
    expect(message!.context).not.toContain("@open-swe fix it");
  });

  it("a deleted comment → null (nothing runs)", async () => {
    mockLinear("OpenSweLinearComment", notFound("Comment"));
    expect(await client().fetchMessage(commentRef)).toBeNull();
  });

  it("a comment that turns out to be a bot's → null", async () => {
    mockLinear("OpenSweLinearComment", {
      data: { viewer: { id: APP_USER }, comment: { id: "c-2", body: "@open-swe", createdAt: "2026-12-01T10:00:00.000Z", user: null, botActor: { id: "b", name: "Zapier" }, issue: null } },
    });
    expect(await client().fetchMessage(commentRef)).toBeNull();
  });

  it("our own comment (the API key's user) → null, even without LINEAR_APP_USER_ID", async () => {
    const source = linearSource(linearEnv({ LINEAR_APP_USER_ID: "" }));
    mockLinear("OpenSweLinearComment", {
      data: {
        viewer: { id: "user-bot" },
        comment: { id: "c-2", body: "@open-swe done", createdAt: "2026-12-01T10:00:00.000Z", user: { id: "user-bot", name: "Open SWE", email: "open-swe@example.com" }, botActor: null, issue: null },
      },
    });
    expect(await source.client(log).fetchMessage(commentRef)).toBeNull();
  });

  it("Linear failing is an upstream error the job can retry, not a missing message", async () => {
    mockLinear("OpenSweLinearComment", INTERNAL_ERROR, { status: 500 });
    const err = await client()
      .fetchMessage(commentRef)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LinearApiError);
    expect(err).toMatchObject({ code: "linear_upstream" });
    expect((err as Error).message).toMatch(/upstream/);
  });

  it("an answer in an unexpected shape is an upstream error", async () => {
    mockLinear("OpenSweLinearComment", { data: { viewer: { id: APP_USER }, comment: { id: 7 } } }, { offContract: "what our zod guard does with an answer Linear would never send" });
    await expect(client().fetchMessage(commentRef)).rejects.toMatchObject({ code: "linear_upstream" });
  });

  const history = (nodes: unknown[]) => ({
    data: {
      issue: {
        ...issueContext,
        comments: { nodes: [] },
        trashed: false,
        archivedAt: null,
        creator: { id: "user-carol", name: "Carol", email: "carol@example.com" },
        assignee: { id: APP_USER },
        delegate: null,
        labels: { nodes: [{ id: "label-swe" }] },
        history: { pageInfo: { hasNextPage: false }, nodes },
      },
    },
  });

  it("an assignment: the person the issue's history names for it, not the payload's claim", async () => {
    mockLinear(
      "OpenSweLinearIssueTrigger",
      history([
        {
          createdAt: "2026-12-01T08:00:00.000Z",
          actor: { id: "user-mallory", name: "M", email: "m@example.com" },
          botActor: null,
          toAssignee: { id: APP_USER },
          toDelegate: null,
          addedLabelIds: null,
        },
        { createdAt: "2026-12-01T10:00:00.000Z", actor: ALICE, botActor: null, toAssignee: { id: APP_USER }, toDelegate: null, addedLabelIds: null },
        { createdAt: "2026-12-01T11:00:00.000Z", actor: { id: "user-bob", name: "Bob", email: "b@example.com" }, botActor: null, toAssignee: null, toDelegate: null, addedLabelIds: null },
      ]),
    );
    const message = await client().fetchMessage({ issueId: ISSUE, teamId: TEAM, trigger: "assigned" });
    expect(message).toMatchObject({ text: "Flaky login test\n\nIt fails one run in ten.", user: ALICE });
  });

  it("a label: who added it; an issue created labelled: its creator", async () => {
    mockLinear("OpenSweLinearIssueTrigger", history([{ createdAt: "2026-12-01T10:00:00.000Z", actor: ALICE, botActor: null, toAssignee: null, toDelegate: null, addedLabelIds: ["label-swe"] }]));
    expect(await client().fetchMessage({ issueId: ISSUE, trigger: "labelled", labelId: "label-swe" })).toMatchObject({ user: ALICE });
    mockLinear("OpenSweLinearIssueTrigger", history([]));
    expect(await client().fetchMessage({ issueId: ISSUE, trigger: "labelled", labelId: "label-swe" })).toMatchObject({ user: { id: "user-carol", email: "carol@example.com" } });
    // A history longer than the page we read: the label's entry may be beyond it, so the creator is not assumed.
    const long = history([]);
    long.data.issue.history.pageInfo.hasNextPage = true;
    mockLinear("OpenSweLinearIssueTrigger", long);
    expect(await client().fetchMessage({ issueId: ISSUE, trigger: "labelled", labelId: "label-swe" })).toBeNull();
  });

  it("an assignment or label since undone, or done by a bot → null", async () => {
    const undone = history([]);
    undone.data.issue.assignee = { id: ALICE.id };
    mockLinear("OpenSweLinearIssueTrigger", undone);
    expect(await client().fetchMessage({ issueId: ISSUE, trigger: "assigned" })).toBeNull();
    mockLinear("OpenSweLinearIssueTrigger", history([]));
    expect(await client().fetchMessage({ issueId: ISSUE, trigger: "labelled", labelId: "label-other" })).toBeNull();
    mockLinear(
      "OpenSweLinearIssueTrigger",
      history([{ createdAt: "2026-12-01T10:00:00.000Z", actor: null, botActor: { id: "b" }, toAssignee: { id: APP_USER }, toDelegate: null, addedLabelIds: null }]),
    );
    expect(await client().fetchMessage({ issueId: ISSUE, trigger: "assigned" })).toBeNull();
    mockLinear("OpenSweLinearIssueTrigger", notFound("Issue"));
    expect(await client().fetchMessage({ issueId: ISSUE, trigger: "assigned" })).toBeNull();
  });

  it("a reference that is not Linear's is refused with a typed error", async () => {
    await expect(client().fetchMessage({ channel: "C1", ts: "1.2" })).rejects.toMatchObject({ code: "linear_bad_ref" });
  });
});

describe("Linear client: acknowledge and reply", () => {
  it("acknowledges with 👀 on the triggering comment, or on the issue for an assignment", async () => {
    const calls: GraphqlCall[] = [];
    mockLinear("OpenSweAcknowledge", { data: { reactionCreate: { success: true } } }, { calls });
    await client().acknowledge(commentRef);
    mockLinear("OpenSweAcknowledge", { data: { reactionCreate: { success: true } } }, { calls });
    await client().acknowledge({ issueId: ISSUE, trigger: "assigned" });
    expect(calls.map((c) => c.variables)).toEqual([{ input: { commentId: "c-2", emoji: "👀" } }, { input: { issueId: ISSUE, emoji: "👀" } }]);
  });

  it("replies under the trigger's thread and attaches the PR link to the issue", async () => {
    const calls: GraphqlCall[] = [];
    mockLinear("OpenSweCommentCreate", { data: { commentCreate: { success: true, comment: { id: "c-9", url: "u" } } } }, { calls });
    mockLinear("OpenSweAttachPullRequest", { data: { attachmentLinkURL: { success: true } } }, { calls });
    await client().reply(commentRef, "Opened https://github.com/acme/app/pull/7 — $0.42, 3 min");
    expect(calls.map((c) => c.variables)).toEqual([
      { input: { issueId: ISSUE, body: "Opened https://github.com/acme/app/pull/7 — $0.42, 3 min", parentId: "c-1" } },
      { issueId: ISSUE, url: "https://github.com/acme/app/pull/7", title: "Pull request acme/app#7" },
    ]);
  });

  it("an issue trigger's reply is a top-level comment; no PR link, no attachment", async () => {
    const calls: GraphqlCall[] = [];
    mockLinear("OpenSweCommentCreate", { data: { commentCreate: { success: true, comment: { id: "c-9", url: "https://linear.app/acme/issue/ENG-1#comment-c-9" } } } }, { calls });
    await client().reply({ issueId: ISSUE, trigger: "assigned" }, "Which repository? Reply with repo:owner/name.");
    expect(calls[0]!.variables).toEqual({ input: { issueId: ISSUE, body: "Which repository? Reply with repo:owner/name." } });
  });

  it("a failed attachment is logged; the reply stands (a retry would post it twice)", async () => {
    mockLinear("OpenSweCommentCreate", { data: { commentCreate: { success: true, comment: { id: "c-9", url: "https://linear.app/acme/issue/ENG-1#comment-c-9" } } } });
    mockLinear("OpenSweAttachPullRequest", INTERNAL_ERROR, { status: 500 });
    await client().reply(commentRef, "https://github.com/acme/app/pull/7");
    expect(lines.some((l) => l["msg"] === "linear: attaching the pull request failed")).toBe(true);
  });

  it("a reply Linear refuses fails with the cause", async () => {
    mockLinear("OpenSweCommentCreate", { data: { commentCreate: { success: false, comment: { id: "c-9", url: "https://linear.app/acme/issue/ENG-1#comment-c-9" } } } });
    await expect(client().reply(commentRef, "hi")).rejects.toMatchObject({ code: "linear_upstream" });
  });

  it("an OAuth access token is sent as Bearer, an API key as is", async () => {
    const source = linearSource(linearEnv({ LINEAR_API_KEY: "", LINEAR_ACCESS_TOKEN: "lin_oauth_abc" }));
    mockLinear("OpenSweAcknowledge", { data: { reactionCreate: { success: true } } }, { auth: "Bearer lin_oauth_abc" });
    await source.client(log).acknowledge(commentRef);
  });

  it("verifiedEmail: an active member's email as Linear has it; deactivated, app or unknown users have none", async () => {
    const calls: GraphqlCall[] = [];
    mockLinear("OpenSweLinearUserEmail", { data: { user: { id: ALICE.id, email: "alice@example.com", active: true, app: false } } }, { calls });
    expect(await client().verifiedEmail!({ id: ALICE.id, email: "claimed@example.com" })).toBe("alice@example.com");
    expect(calls[0]!.variables).toEqual({ id: ALICE.id });
    mockLinear("OpenSweLinearUserEmail", { data: { user: { id: ALICE.id, email: "alice@example.com", active: false, app: false } } });
    expect(await client().verifiedEmail!({ id: ALICE.id })).toBeNull();
    mockLinear("OpenSweLinearUserEmail", { data: { user: { id: "u-app", email: "bot@example.com", active: true, app: true } } });
    expect(await client().verifiedEmail!({ id: "u-app" })).toBeNull();
    mockLinear("OpenSweLinearUserEmail", notFound("User"));
    expect(await client().verifiedEmail!({ id: "u-gone" })).toBeNull();
    mockLinear("OpenSweLinearUserEmail", INTERNAL_ERROR, { status: 500 });
    await expect(client().verifiedEmail!({ id: ALICE.id })).rejects.toMatchObject({ code: "linear_upstream" });
  });

  it("no credential: building the client says which variable is missing", () => {
    expect(() => linearSource(linearEnv({ LINEAR_API_KEY: "" })).client(log)).toThrow(/LINEAR_API_KEY or LINEAR_ACCESS_TOKEN/);
  });
});
