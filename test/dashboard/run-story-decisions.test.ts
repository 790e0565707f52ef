import { describe, expect, it } from "vitest";
import { liveEvents, type RunLiveState } from "../../src/dashboard/live-view.js";
import { prHealthOf, prOfUrl } from "../../src/dashboard/pr-health.js";
import { stepDuration } from "../../src/dashboard/views/conversation-view.js";

const state = (over: Partial<RunLiveState>): RunLiveState => ({ status: "running", ended: false, items: ["<a>", "<b>"], usage: "u1", todos: "t1", end: "", ...over });

describe("liveEvents: what one viewer is sent", () => {
  it.each([
    ["a new viewer gets every message, usage, todos, status", { sent: 0, status: "", usage: "", todos: "" }, state({}), ["message:1", "message:2", "usage", "todos", "status"]],
    ["a resumed viewer (Last-Event-ID 1) gets only what follows", { sent: 1, status: "running", usage: "u1", todos: "t1" }, state({}), ["message:2"]],
    ["nothing changed: nothing sent", { sent: 2, status: "running", usage: "u1", todos: "t1" }, state({}), []],
    ["the end", { sent: 2, status: "running", usage: "u1", todos: "t1" }, state({ status: "pr_opened", ended: true, end: "<p>" }), ["status", "done"]],
    ["a viewer ahead of a shorter conversation gets no message", { sent: 5, status: "running", usage: "u1", todos: "t1" }, state({}), []],
  ])("%s", (_n, seen, s, want) => {
    expect(liveEvents(seen, s).events.map((e) => (e.id ? `${e.event}:${e.id}` : e.event))).toEqual(want);
  });
});

describe("prHealthOf: GitHub's answers as the PR's health", () => {
  const url = "https://github.com/o/r/pull/3";
  const none = { checkRuns: [], status: { statuses: [] } };
  it.each([
    ["open, clean, nothing pending", { state: "open", merged: false, mergeable_state: "clean" }, none, { state: "open", merge: "clean", failing: [], pending: [], passed: 0 }],
    ["merged", { state: "closed", merged: true, mergeable_state: "unknown" }, none, { state: "merged", merge: "unknown" }],
    ["closed unmerged", { state: "closed", merged: false, mergeable_state: "unknown" }, none, { state: "closed" }],
    ["draft with a conflict", { state: "open", merged: false, draft: true, mergeable_state: "dirty" }, none, { state: "draft", merge: "conflict" }],
    [
      "a failed, a cancelled, a queued run and a pending and an error status",
      { state: "open", merged: false, mergeable_state: "blocked" },
      {
        checkRuns: [
          { name: "a", status: "completed", conclusion: "failure", html_url: "ua" },
          { name: "b", status: "completed", conclusion: "cancelled", html_url: null },
          { name: "c", status: "queued", conclusion: null, html_url: "uc" },
          { name: "d", status: "completed", conclusion: "skipped", html_url: "ud" },
        ],
        status: {
          statuses: [
            { context: "e", state: "pending", target_url: null },
            { context: "f", state: "error", target_url: "uf" },
          ],
        },
      },
      {
        merge: "blocked",
        failing: [
          { name: "a", url: "ua" },
          { name: "b", url: null },
          { name: "f", url: "uf" },
        ],
        pending: [
          { name: "c", url: "uc" },
          { name: "e", url: null },
        ],
        passed: 1,
      },
    ],
  ])("%s", (_n, pull, checks, want) => {
    expect(prHealthOf(url, 3, pull, checks, [])).toMatchObject(want);
  });
  it("lists unresolved threads only, each linked to its first comment", () => {
    expect(
      prHealthOf(url, 3, { state: "open", merged: false, mergeable_state: "clean" }, none, [
        { id: "1", isResolved: false, firstCommentId: 9 },
        { id: "2", isResolved: true, firstCommentId: 10 },
        { id: "3", isResolved: false, firstCommentId: null },
      ]).unresolved,
    ).toEqual([{ url: `${url}#discussion_r9` }, { url: `${url}/files` }]);
  });
  it.each([
    ["https://github.com/octo/hello/pull/21", { owner: "octo", repo: "hello", number: 21 }],
    ["https://ghe.example.com/octo/hello/pull/4/", { owner: "octo", repo: "hello", number: 4 }],
    ["https://github.com/octo/hello/issues/21", null],
    ["javascript:alert(1)", null],
  ])("prOfUrl(%s)", (u, want) => {
    expect(prOfUrl(u)).toEqual(want);
  });
});

describe("stepDuration: as Actions shows a step", () => {
  it.each([
    [400, "0.4s"],
    [9_960, "10.0s"],
    [15_000, "15s"],
    [125_000, "2m 5s"],
    [3_780_000, "1h 3m"],
    [-5, "0.0s"],
  ])("%d ms → %s", (ms, want) => {
    expect(stepDuration(ms)).toBe(want);
  });
});
