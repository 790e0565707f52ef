import { describe, expect, it } from "vitest";
import { linearSource } from "../../src/sources/linear/index.js";
import { linearEnv } from "../sources/linear/linear-fixtures.js";
import { capturedLogger, mockLinear, notFound } from "../sources/linear/linear-nock.js";

// The agent's Linear tools hold the app's key and the agent reads hostile text (repositories, comments):
// a prompt that says "delete ENG-1" must not delete someone's issue. Unused mocks fail, so no delete is sent.
describe("Linear tools: what the app's key may destroy", () => {
  const { log } = capturedLogger();
  const del = linearSource(linearEnv()).client(log).tools({ issueId: "issue-0001", trigger: "comment", commentId: "c-1", parentId: "c-1" }).find((t) => t.name === "linear_delete_issue")!;
  const creator = (creatorId: string | null) => ({ data: { viewer: { id: "user-app" }, issue: { id: "i-9", identifier: "ENG-9", creator: creatorId ? { id: creatorId } : null, team: { id: "team-eng" } } } });

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
});
