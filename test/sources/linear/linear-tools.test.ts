import type { StructuredToolInterface } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { LinearApi } from "../../../src/sources/linear/linear-api.js";
import { toolErrorText } from "../../../src/agent/middleware/tool-errors.js";
import { linearSource } from "../../../src/sources/linear/index.js";
import { SOURCE_TOOL_NAMES } from "../../../src/sources/registry.js";
import { RUN_SIDE_EFFECT_TOOLS } from "../../../src/runs/run-tool-names.js";
import { ISSUE, linearEnv, TEAM } from "./linear-fixtures.js";
import { capturedLogger, INTERNAL_ERROR, mockLinear, notFound, type GraphqlCall } from "./linear-nock.js";

const ref = { issueId: ISSUE, teamId: TEAM, trigger: "comment", commentId: "c-2", parentId: "c-1" };
const { log } = capturedLogger();
const tools = (r: Record<string, unknown> = ref) =>
  new Map(
    linearSource(linearEnv())
      .client(log)
      .tools(r)
      .map((t) => [t.name, t]),
  );
const tool = (name: string, r?: Record<string, unknown>): StructuredToolInterface => {
  const t = tools(r).get(name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
};
const run = async (name: string, args: Record<string, unknown>, r?: Record<string, unknown>) => String(await tool(name, r).invoke(args));

const EXPECTED = ["linear_comment", "linear_get_issue", "linear_get_issue_comments", "linear_create_issue", "linear_update_issue", "linear_delete_issue", "linear_search_issues", "linear_list_teams"];

describe("Linear tools", () => {
  it("offers seed 002's list; the side-effecting ones are not repeated on resume", () => {
    expect([...tools().keys()]).toEqual(EXPECTED);
    const declared = [...SOURCE_TOOL_NAMES.linear.reply, ...SOURCE_TOOL_NAMES.linear.writes];
    expect(declared).toEqual(["linear_comment", "linear_create_issue", "linear_update_issue", "linear_delete_issue"]);
    for (const name of declared) expect(RUN_SIDE_EFFECT_TOOLS).toContain(name);
  });

  it("linear_comment: threaded under the trigger, its PR link attached", async () => {
    const calls: GraphqlCall[] = [];
    mockLinear("OpenSweCommentCreate", { data: { commentCreate: { success: true, comment: { id: "c-9", url: "https://linear.app/acme/issue/ENG-1#comment-c-9" } } } }, { calls });
    mockLinear("OpenSweAttachPullRequest", { data: { attachmentLinkURL: { success: true } } }, { calls });
    expect(await run("linear_comment", { body: "Done: https://github.com/acme/app/pull/12" })).toBe("Comment posted; 1 pull request link(s) attached to the issue.");
    expect(calls[0]!.variables).toEqual({ input: { issueId: ISSUE, body: "Done: https://github.com/acme/app/pull/12", parentId: "c-1" } });
    expect(calls[1]!.variables).toMatchObject({ issueId: ISSUE, url: "https://github.com/acme/app/pull/12" });
  });

  it("linear_comment: a failed attachment after the comment is posted is said, never thrown", async () => {
    mockLinear("OpenSweCommentCreate", { data: { commentCreate: { success: true, comment: { id: "c-9", url: "https://linear.app/acme/issue/ENG-1#comment-c-9" } } } });
    mockLinear("OpenSweAttachPullRequest", INTERNAL_ERROR, { status: 500 });
    expect(await run("linear_comment", { body: "https://github.com/acme/app/pull/12" })).toMatch(/^Comment posted; attaching .* failed: .*upstream.*Do not post the comment again\.$/s);
  });

  it("linear_get_issue: this conversation's issue by default, another by identifier", async () => {
    const calls: GraphqlCall[] = [];
    mockLinear(
      "OpenSweGetIssue",
      {
        data: {
          issue: {
            id: ISSUE,
            identifier: "ENG-1",
            title: "Flaky login test",
            url: "https://linear.app/acme/issue/ENG-1",
            priority: 0,
            priorityLabel: "No priority",
            createdAt: "2026-12-01T09:00:00.000Z",
            updatedAt: "2026-12-01T09:00:00.000Z",
            state: { id: "s", name: "Todo", type: "unstarted" },
            team: { id: "t", key: "ENG", name: "Engineering" },
            labels: { nodes: [] },
          },
        },
      },
      { calls },
    );
    expect(JSON.parse(await run("linear_get_issue", {}))).toMatchObject({ identifier: "ENG-1" });
    mockLinear("OpenSweGetIssue", notFound("Issue"), { calls });
    // Linear answers an unknown id with an error, never `issue: null` (its schema: `issue: Issue!`).
    await expect(run("linear_get_issue", { issueId: "ENG-404" })).rejects.toMatchObject({ code: "linear_not_found" });
    expect(calls.map((c) => c.variables)).toEqual([{ id: ISSUE }, { id: "ENG-404" }]);
  });

  it("linear_get_issue_comments: oldest first, bounded", async () => {
    const calls: GraphqlCall[] = [];
    mockLinear(
      "OpenSweGetIssueComments",
      {
        data: {
          issue: {
            identifier: "ENG-1",
            comments: {
              nodes: [
                { id: "b", body: "second", createdAt: "2026-12-01T10:00:00.000Z" },
                { id: "a", body: "first", createdAt: "2026-12-01T09:00:00.000Z" },
              ],
            },
          },
        },
      },
      { calls },
    );
    const out = JSON.parse(await run("linear_get_issue_comments", { limit: 5 })) as { comments: Array<{ id: string }> };
    expect(out.comments.map((c) => c.id)).toEqual(["a", "b"]);
    expect(calls[0]!.variables).toEqual({ id: ISSUE, first: 5 });
    await expect(run("linear_get_issue_comments", { limit: 500 })).rejects.toThrow();
  });

  it("linear_create_issue: in this conversation's team unless told; no team at all → says how to find one", async () => {
    const calls: GraphqlCall[] = [];
    mockLinear("OpenSweIssueCreate", { data: { issueCreate: { success: true, issue: { id: "i-2", identifier: "ENG-2", title: "Follow-up", url: "u" } } } }, { calls });
    expect(JSON.parse(await run("linear_create_issue", { title: "Follow-up", priority: 3 }))).toMatchObject({ identifier: "ENG-2" });
    expect(calls[0]!.variables).toEqual({ input: { title: "Follow-up", priority: 3, teamId: TEAM } });
    expect(await run("linear_create_issue", { title: "x" }, { issueId: ISSUE, trigger: "assigned" })).toMatch(/linear_list_teams/);
    await expect(run("linear_create_issue", { title: "x", priority: 9 })).rejects.toThrow();
  });

  it("linear_update_issue: only the fields given; nothing to change is refused by the schema", async () => {
    const calls: GraphqlCall[] = [];
    mockLinear(
      "OpenSweIssueUpdate",
      { data: { issueUpdate: { success: true, issue: { id: ISSUE, identifier: "ENG-1", title: "New title", url: "https://linear.app/acme/issue/ENG-1" } } } },
      { calls },
    );
    await run("linear_update_issue", { stateId: "state-done", assigneeId: null });
    expect(calls[0]!.variables).toEqual({ id: ISSUE, input: { stateId: "state-done", assigneeId: null } });
    await expect(run("linear_update_issue", { issueId: "ENG-1" })).rejects.toThrow(/at least one field/);
  });

  const creator = (creatorId: string | null) => ({
    data: { viewer: { id: "user-app" }, issue: { id: "i-9", identifier: "ENG-9", creator: creatorId ? { id: creatorId } : null, team: { id: "team-eng" } } },
  });

  it("linear_delete_issue: an issue the app created goes to the trash, never a permanent delete", async () => {
    const calls: GraphqlCall[] = [];
    mockLinear("OpenSweIssueCreator", creator("user-app"), { calls });
    mockLinear("OpenSweIssueDelete", { data: { issueDelete: { success: true } } }, { calls });
    expect(await run("linear_delete_issue", { issueId: "ENG-9" })).toBe("Issue ENG-9 moved to Linear's trash.");
    expect(calls.map((c) => c.variables)).toEqual([{ id: "ENG-9" }, { id: "i-9" }]);
    expect(calls[1]!.query).not.toMatch(/permanentlyDelete/);
    await expect(run("linear_delete_issue", {})).rejects.toThrow();
  });

  it("linear_search_issues: term, team and limit go to searchIssues", async () => {
    const calls: GraphqlCall[] = [];
    mockLinear(
      "OpenSweSearchIssues",
      {
        data: {
          searchIssues: {
            totalCount: 1,
            nodes: [
              { id: ISSUE, identifier: "ENG-1", title: "Flaky login test", url: "https://linear.app/acme/issue/ENG-1", priorityLabel: "No priority", state: { name: "Todo" }, team: { key: "ENG" } },
            ],
          },
        },
      },
      { calls },
    );
    expect(JSON.parse(await run("linear_search_issues", { query: "login", teamId: TEAM, limit: 3 }))).toMatchObject({
      total: 1,
      issues: [{ id: ISSUE, identifier: "ENG-1", title: "Flaky login test" }],
    });
    expect(calls[0]!.variables).toEqual({ term: "login", first: 3, includeComments: false, includeArchived: false, teamId: TEAM });
  });

  it("linear_list_teams", async () => {
    mockLinear("OpenSweListTeams", { data: { teams: { nodes: [{ id: TEAM, key: "ENG", name: "Engineering" }] } } });
    expect(JSON.parse(await run("linear_list_teams", {}))).toEqual([{ id: TEAM, key: "ENG", name: "Engineering" }]);
  });

  // Every tool, Linear failing: the model reads an upstream error, never that its input was wrong.
  const calls: Array<[string, string, Record<string, unknown>]> = [
    ["linear_comment", "OpenSweCommentCreate", { body: "hi" }],
    ["linear_get_issue", "OpenSweGetIssue", {}],
    ["linear_get_issue_comments", "OpenSweGetIssueComments", {}],
    ["linear_create_issue", "OpenSweIssueCreate", { title: "t" }],
    ["linear_update_issue", "OpenSweIssueUpdate", { title: "t" }],
    ["linear_delete_issue", "OpenSweIssueCreator", { issueId: "ENG-9" }],
    ["linear_search_issues", "OpenSweSearchIssues", { query: "q" }],
    ["linear_list_teams", "OpenSweListTeams", {}],
  ];
  it.each(calls)("%s: a Linear outage is reported as an upstream error", async (name, op, args) => {
    mockLinear(op, INTERNAL_ERROR, { status: 500 });
    const err = await tool(name)
      .invoke(args)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "linear_upstream" });
    const text = toolErrorText(name, err);
    expect(text).toMatch(/upstream error, not a problem with the request/);
    expect(text).not.toMatch(/rejected/);
  });

  it.each([
    ["rate limited (429)", 429, { errors: [{ message: "Rate limit exceeded", extensions: { type: "ratelimited", code: "RATELIMITED" } }] }],
    ["our credential refused (401)", 401, { errors: [{ message: "Authentication required", extensions: { type: "authentication error", code: "AUTHENTICATION_ERROR" } }] }],
    ["an HTML gateway page (502)", 502, "<html>Bad gateway</html>"],
  ])("%s is upstream too", async (_name, status, answer) => {
    mockLinear("OpenSweListTeams", answer, { status });
    await expect(tool("linear_list_teams").invoke({})).rejects.toMatchObject({ code: "linear_upstream" });
  });

  it("an id Linear does not know is the input's problem, said as such", async () => {
    mockLinear("OpenSweIssueCreator", notFound("Issue"));
    const err = await tool("linear_delete_issue")
      .invoke({ issueId: "ENG-404" })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "linear_not_found" });
    expect(toolErrorText("linear_delete_issue", err)).toMatch(/Linear rejected the request: Could not find referenced Issue\./);
  });
});

describe("LinearApi", () => {
  it("a call Linear does not answer in time is abandoned as an upstream error", async () => {
    mockLinear("OpenSweListTeams", { data: { teams: { nodes: [] } } }, { delayMs: 2_000 });
    const api = new LinearApi({ apiKey: "lin_api_test" }, undefined, 100);
    const err = await api.request("query OpenSweListTeams { teams { nodes { id } } }", {}, z.unknown()).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "linear_upstream" });
    expect((err as Error).message).toMatch(/upstream/);
  });
});
