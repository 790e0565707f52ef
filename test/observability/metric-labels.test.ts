import { describe, expect, it } from "vitest";
import { toolLabels, webhookLabels } from "../../src/observability/metric-labels.js";

describe("bounded metric labels", () => {
  it.each([
    ["our own tool: its name, no server", "execute", "", { tool: "execute", server: "" }],
    ["an MCP tool: its server's bucket, not its own name", "mcp__docs__search", "docs", { tool: "mcp__docs__*", server: "docs" }],
    ["another tool of a server already seen", "mcp__docs__fetch", "docs", { tool: "mcp__docs__*", server: "docs" }],
    ["a server past the cap", "mcp__s3__x", "s3", { tool: "mcp__other__*", server: "other" }],
  ])("toolLabels: %s", (_, tool, server, labels) => {
    const seen = new Set(["docs", "s1", "s2"]);
    expect(toolLabels(tool, server, seen, 3)).toEqual(labels);
  });

  it("toolLabels: at most `max` servers by name, however many a repository names", () => {
    const seen = new Set<string>();
    const servers = new Set(Array.from({ length: 100 }, (_, i) => toolLabels(`mcp__s${i}__t${i}`, `s${i}`, seen, 20).server));
    expect(servers.size).toBe(21);
    expect(servers.has("other")).toBe(true);
  });

  it.each([
    ["issue_comment", 200, { event: "issue_comment", result: "accepted" }],
    ["issues", 202, { event: "issues", result: "accepted" }],
    ["pull_request", 400, { event: "pull_request", result: "refused" }],
    ["ping", 413, { event: "ping", result: "refused" }],
    ["issues", 503, { event: "issues", result: "failed" }],
    ["x-evil-0001", 400, { event: "other", result: "refused" }],
    [undefined, 400, { event: "other", result: "refused" }],
    [["issues", "issues"], 400, { event: "other", result: "refused" }],
  ] as const)("webhookLabels(%j, %i)", (header, status, labels) => {
    expect(webhookLabels(header as string | string[] | undefined, status)).toEqual(labels);
  });
});
