import { describe, expect, it } from "vitest";
import { linksForRepo } from "../../src/sources/linked-tracker-tools.js";

describe("linksForRepo", () => {
  const links = { "jira:ENG": "octo/hello", "jira:APP": "Octo/Hello", "linear:team-1": "octo/hello", "slack:C1": "octo/hello", "jira:OPS": "octo/other" };
  it.each([
    ["a GitHub run: one link per source, the first by name", null, ["jira:APP", "linear:team-1", "slack:C1"]],
    ["a Jira run keeps its own conversation's tools: no linked Jira", "jira", ["linear:team-1", "slack:C1"]],
  ] as const)("%s", (_name, except, want) => {
    expect(linksForRepo(links, "octo/hello", except).map((l) => l.key)).toEqual(want);
  });

  it("splits source and where at the first colon", () => {
    expect(linksForRepo({ "confluence:SPACE:x": "o/r" }, "o/r", null)).toEqual([{ key: "confluence:SPACE:x", source: "confluence", where: "SPACE:x" }]);
  });

  it("a repository nothing links to gets nothing", () => {
    expect(linksForRepo(links, "octo/none", null)).toEqual([]);
  });
});
