import { describe, expect, it } from "vitest";
import { linearSource } from "../../src/sources/linear/index.js";
import { outsideTeam } from "../../src/sources/linear/tools/team-scope.js";
import { linearDeleteIssueTool } from "../../src/sources/linear/tools/linear-delete-issue.js";
import { LinearApi } from "../../src/sources/linear/linear-api.js";
import { linearEnv, TEAM } from "../sources/linear/linear-fixtures.js";
import { capturedLogger, mockLinear, notFound, type GraphqlCall } from "../sources/linear/linear-nock.js";

// The agent's Linear tools hold the app's key and the agent reads hostile text (repositories, comments):
// a prompt that says "delete ENG-1" must not delete someone's issue. Unused mocks fail, so no delete is sent.
describe("Linear tools: what the app's key may destroy", () => {
  const { log } = capturedLogger();
  const del = linearSource(linearEnv())
    .client(log)
    .tools({ issueId: "issue-0001", trigger: "comment", commentId: "c-1", parentId: "c-1" })
    .find((t) => t.name === "linear_delete_issue")!;
  const creator = (creatorId: string | null) => ({
    data: { viewer: { id: "user-app" }, issue: { id: "i-9", identifier: "ENG-9", creator: creatorId ? { id: creatorId } : null, team: { id: "team-eng" } } },
  });

  it.each([
    ["a person's issue", creator("user-alice")],
    ["an issue with no creator on record (an integration's)", creator(null)],
  ])("deleting %s is refused and no delete reaches Linear", async (_name, answer) => {
    mockLinear("OpenSweIssueCreator", answer);
    expect(String(await del.invoke({ issueId: "ENG-9" }))).toMatch(/^Refused: ENG-9 was not created by Open SWE/);
  });

  it("a missing issue is said, nothing deleted", async () => {
    mockLinear("OpenSweIssueCreator", notFound("Issue"));
    await expect(del.invoke({ issueId: "ENG-404" })).rejects.toMatchObject({ code: "linear_not_found" });
  });

  it("with a team scope, even the app's own issue in another team is not deleted", async () => {
    const scoped = linearDeleteIssueTool({ api: new LinearApi({ apiKey: "lin_api_test" }), team: TEAM, log });
    mockLinear("OpenSweIssueCreator", creator("user-app"));
    expect(String(await scoped.invoke({ issueId: "ENG-9" }))).toBe(`Refused: ENG-9 is outside team ${TEAM}, the one linked to this repository; writes stay in that team.`);
  });
});

// A run of a repository linked to a Linear team (settings source-repo linear:<team>) must not write across the
// workspace: text it reads (an issue, a README) naming another team's issue gets a refusal and no mutation.
describe("Linear tools on a linked repository's run: writes kept to the linked team", () => {
  const { log } = capturedLogger();
  const tools = linearSource(linearEnv()).client(log).linkedTools!(TEAM);
  const named = (n: string) => tools.find((t) => t.name === n)!;
  const inTeam = (team: string) => ({ data: { issue: { id: "issue-0007", identifier: "OPS-7", team: { id: team, key: "OPS" } } } });
  const refusal = `Refused: OPS-7 is outside team ${TEAM}, the one linked to this repository; writes stay in that team.`;

  it("offers reads, comment, create and update; never delete", () => {
    expect(tools.map((t) => t.name).sort()).toEqual([
      "linear_comment",
      "linear_create_issue",
      "linear_get_issue",
      "linear_get_issue_comments",
      "linear_list_teams",
      "linear_search_issues",
      "linear_update_issue",
    ]);
  });

  it.each([
    ["linear_comment", { issueId: "OPS-7", body: "close this" }],
    ["linear_update_issue", { issueId: "OPS-7", title: "pwned" }],
  ])("%s on another team's issue: one lookup, refused, no mutation", async (name, args) => {
    const calls: GraphqlCall[] = [];
    mockLinear("OpenSweIssueTeam", inTeam("team-ops"), { calls });
    expect(String(await named(name).invoke(args))).toBe(refusal);
    expect(calls.map((c) => c.variables)).toEqual([{ id: "OPS-7" }]);
  });

  it("linear_create_issue in another team is refused before any call", async () => {
    expect(String(await named("linear_create_issue").invoke({ title: "x", teamId: "team-ops" }))).toBe(
      `Refused: team team-ops is not ${TEAM}, the team linked to this repository; omit teamId to create the issue there.`,
    );
  });

  it("a comment on the linked team's issue is posted to the issue the lookup resolved", async () => {
    const posted: GraphqlCall[] = [];
    mockLinear("OpenSweIssueTeam", inTeam(TEAM));
    mockLinear("OpenSweCommentCreate", { data: { commentCreate: { success: true, comment: { id: "c-9", url: "https://linear.app/acme/issue/OPS-7#comment-c-9" } } } }, { calls: posted });
    expect(String(await named("linear_comment").invoke({ issueId: "OPS-7", body: "on it" }))).toBe("Comment posted.");
    expect(posted.map((c) => c.variables)).toEqual([{ input: { issueId: "issue-0007", body: "on it" } }]);
  });
});

describe("outsideTeam (pure)", () => {
  it.each([
    [undefined, "team-a", null],
    ["team-a", "team-a", null],
    ["team-a", "team-b", "Refused: ENG-1 is outside team team-a, the one linked to this repository; writes stay in that team."],
  ] as const)("scope %s, issue in %s → %s", (scope, team, want) => {
    expect(outsideTeam(scope, "ENG-1", team)).toBe(want);
  });
});
