import { describe, expect, it } from "vitest";
import { mcpContext, runMode, runPromptParts, serverDeniedByPolicy, shortMcpReason } from "../../src/runs/run-prompt-parts.js";

describe("runMode (pure)", () => {
  it.each([
    [{ trigger: "comment" }, "task"],
    [{ trigger: "issue_opened" }, "task"],
    [{ trigger: "wakeup" }, "task"],
    [{ trigger: "follow_up" }, "follow_up"],
    [{ trigger: "ci_fix", autofixHead: "abc" }, "ci_fix"],
    [{ trigger: "ci_fix", autofixHead: "abc", autofixBase: "main" }, "conflict_fix"],
    // A resumed approval keeps the paused run's mode.
    [{ trigger: "approval", autofixHead: "abc" }, "ci_fix"],
    [{ trigger: "approval" }, "task"],
  ] as const)("%j → %s", (data, mode) => expect(runMode(data)).toBe(mode));
});

describe("shortMcpReason (pure): never a server's body", () => {
  it.each([
    ["Streamable HTTP error: Error POSTing to endpoint (HTTP 500): <html>secret internals</html>", "HTTP 500"],
    ['status code 401 Unauthorized {"detail":"token leaked"}', "HTTP 401"],
    ["spawn no-such-mcp-server ENOENT\nmore lines", "spawn no-such-mcp-server ENOENT"],
    ["x".repeat(300), `${"x".repeat(99)}…`],
    ["", "unknown error"],
  ])("%s", (reason, short) => expect(shortMcpReason(reason)).toBe(short));
});

describe("serverDeniedByPolicy (pure): every tool the server could offer is denied", () => {
  it.each([
    [{ repo: { "mcp__docs__*": "deny" } }, true],
    [{ team: { "mcp__*": "deny" } }, true],
    [{ team: { "*": "deny" } }, true],
    [{ repo: { mcp__docs__search: "deny" } }, false],
    [{ repo: { "mcp__docs__*": "deny", mcp__docs__search: "always_allow" } }, false],
    // The repo level decides before the team's: a team allow on one tool does not reopen it.
    [{ repo: { "mcp__docs__*": "deny" }, team: { mcp__docs__search: "always_allow" } }, true],
    [{ team: { "mcp__docs__*": "deny" }, repo: { "mcp__docs__read*": "ask" } }, false],
    [{ repo: { "mcp__other__*": "deny" } }, false],
    [{}, false],
  ] as const)("%j → %s", (sources, denied) => expect(serverDeniedByPolicy("docs", sources)).toBe(denied));
});

describe("mcpContext / runPromptParts (pure)", () => {
  it("lists connected, failed (short reason) and denied servers, sorted; nothing when there are none", () => {
    expect(mcpContext({ connected: [], failed: [], denied: [] })).toBe("");
    expect(mcpContext({ connected: ["local", "docs"], failed: [{ name: "ghost", reason: "HTTP 503: <body>" }], denied: ["blocked"] })).toBe(
      "## MCP servers\n\nConnected: `docs`, `local`; their tools are named `mcp__<server>__<tool>`.\nFailed to start, so not available this run: `ghost` (HTTP 503).\nConfigured but denied by policy, so not started: `blocked`.",
    );
  });
  it("leaves out empty instructions and keeps the parts free of per-run values", () => {
    const parts = runPromptParts({ mode: "follow_up", repoInstructions: "  ", userInstructions: undefined, requester: "dana", mcp: { connected: [], failed: [], denied: [] } });
    expect(parts).toEqual({ mode: expect.stringMatching(/^## Mode: follow-up\n\n/), context: [] });
  });
});
