import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { safeNext } from "../../src/dashboard/auth-routes.js";
import { conversationItems, todosOf, truncate } from "../../src/dashboard/conversation.js";
import { csrfAllowed } from "../../src/dashboard/guards.js";
import { isDashboardPath } from "../../src/dashboard/handler.js";
import { authorizeUrl } from "../../src/github/user-oauth.js";
import { matches, type RunEntry } from "../../src/store/run-index.js";

describe("dashboard decisions", () => {
  it.each([
    [undefined, "/app"],
    ["/app/runs/j__x", "/app/runs/j__x"],
    ["/app/profile?saved=1", "/app/profile?saved=1"],
    ["//evil.example/app", "/app"],
    ["https://evil.example/app", "/app"],
    ["/auth/logout", "/app"],
    ["/app\\@evil", "/app"],
    ["/apple", "/app"],
    ["/app/<script>", "/app"],
  ])("safeNext(%s) = %s", (next, want) => expect(safeNext(next)).toBe(want));

  const token = "t".repeat(43);
  it.each([
    ["the session's token", { token, path: "/app/profile" }, true],
    ["no token", { path: "/app/profile" }, false],
    ["another token", { token: "u".repeat(43), path: "/app/admin/repos" }, false],
    ["a shorter prefix of it", { token: token.slice(0, 10), path: "/app/profile" }, false],
    ["bull-board, same origin by fetch metadata", { path: "/app/admin/queues/api/queues/agent/retry", secFetchSite: "same-origin" }, true],
    ["bull-board, cross-site", { path: "/app/admin/queues/api/queues/agent/retry", secFetchSite: "cross-site", origin: "http://h:1", host: "h:1" }, false],
    ["bull-board, Origin matches Host", { path: "/app/admin/queues/api/x", origin: "http://h:1", host: "h:1" }, true],
    ["bull-board, Origin of another host", { path: "/app/admin/queues/api/x", origin: "http://evil", host: "h:1" }, false],
    ["bull-board, no Origin", { path: "/app/admin/queues/api/x", host: "h:1" }, false],
    ["an ordinary form with a matching Origin but no token", { path: "/app/admin/repos", origin: "http://h:1", host: "h:1", secFetchSite: "same-origin" }, false],
  ])("csrf: %s", (_, o, want) => expect(csrfAllowed({ token: undefined, origin: undefined, secFetchSite: undefined, host: undefined, sessionToken: token, ...o })).toBe(want));

  it.each([
    ["/app", true],
    ["/app/runs?x=1", true],
    ["/auth/login", true],
    ["/apple", false],
    ["/api/github/webhooks", false],
    ["/health", false],
    [undefined, false],
  ])("isDashboardPath(%s) = %s", (url, want) => expect(isDashboardPath(url)).toBe(want));

  it("authorizeUrl carries client, redirect, state and an S256 challenge", () => {
    const u = new URL(authorizeUrl({ clientId: "Iv1.a", clientSecret: "s", webBase: "https://ghe.example", apiBase: "" }, { redirectUri: "https://swe/auth/callback", state: "st", challenge: "ch" }));
    expect(u.origin + u.pathname).toBe("https://ghe.example/login/oauth/authorize");
    expect(Object.fromEntries(u.searchParams)).toEqual({
      client_id: "Iv1.a",
      redirect_uri: "https://swe/auth/callback",
      state: "st",
      code_challenge: "ch",
      code_challenge_method: "S256",
      allow_signup: "false",
    });
  });

  it("conversation items: tool inputs and outputs truncated, errors marked; todos read from state", () => {
    expect(truncate("abcdef", 3)).toBe("abc… (3 more characters)");
    const items = conversationItems([
      new HumanMessage("do it"),
      new AIMessage({ content: "ok", tool_calls: [{ name: "execute", args: { command: "x".repeat(5000) }, id: "1" }] }),
      new ToolMessage({ content: "y".repeat(3000), tool_call_id: "1", name: "execute", status: "error" }),
    ]);
    expect(items[0]).toEqual({ kind: "human", text: "do it", toolCalls: [] });
    expect(items[1]).toMatchObject({ kind: "ai", text: "ok", toolCalls: [{ name: "execute", input: expect.stringMatching(/… \(\d+ more characters\)$/) }] });
    expect(items[2]).toMatchObject({ kind: "tool", name: "execute", error: true, output: expect.stringMatching(/^y{2000}… \(1000 more characters\)$/) });
    expect(todosOf({ todos: [{ content: "a", status: "completed" }, { nope: 1 }, { content: "b" }] })).toEqual([
      { content: "a", status: "completed" },
      { content: "b", status: "pending" },
    ]);
    expect(todosOf(undefined)).toEqual([]);
  });

  const entry: RunEntry = { runId: "r", repo: "octo/hello", threadId: "t", trigger: "comment", source: "dashboard", requester: "dana", title: "", status: "running", queuedAt: 1 };
  it.each([
    ["a writable repo", { repos: new Set(["octo/hello"]) }, true],
    ["a repo the viewer cannot write", { repos: new Set(["octo/other"]) }, false],
    ["the repo filter", { repos: new Set(["octo/hello"]), repo: "Octo/Hello" }, true],
    ["another repo filter", { repos: new Set(["octo/hello"]), repo: "octo/other" }, false],
    ["the status filter", { repos: new Set(["octo/hello"]), status: "failed" as const }, false],
    ["the source filter", { repos: new Set(["octo/hello"]), source: "dashboard" }, true],
  ])("runs filter: %s", (_, f, want) => expect(matches(entry, f)).toBe(want));
});
