import { describe, expect, it } from "vitest";
import type { Finding } from "../../../src/review/findings.js";
import { findingOutcome, findingOutcomes, tallyByRule, type Outcome } from "../../../src/review/style/finding-outcomes.js";
import { boundSamples, type RawReviewComment } from "../../../src/review/style/review-samples.js";

function f(id: string, rule: string, patch: Partial<Finding>): Finding {
  return { id, fingerprint: id, path: "a.ts", line: 1, side: "RIGHT", headSha: "h", severity: "medium", title: id, body: "b", rule, status: "open", ...patch };
}

describe("findingOutcome", () => {
  const table: Array<[string, Partial<Finding>, boolean, Outcome]> = [
    ["fixed by the author", { status: "resolved", closedBy: "fix" }, false, "accepted"],
    ["resolved before closedBy existed", { status: "resolved" }, false, "accepted"],
    ["thread resolved by a human without a fix", { status: "resolved", closedBy: "human" }, false, "rejected"],
    ["dismissed", { status: "dismissed" }, false, "rejected"],
    ["open", {}, false, "pending"],
    ["open but thumbed down", {}, true, "rejected"],
    ["fixed but thumbed down", { status: "resolved", closedBy: "fix" }, true, "rejected"],
  ];
  it.each(table)("%s → %s", (_n, patch, down, want) => {
    expect(findingOutcome(f("x", "r", patch), down ? new Set(["x"]) : new Set())).toBe(want);
  });

  it("tallies per rule, least accepted first", () => {
    const outcomes = findingOutcomes("o/r#1", [
      f("a", "style-nit", { status: "dismissed" }),
      f("b", "style-nit", { status: "dismissed" }),
      f("c", "null-deref", { status: "resolved", closedBy: "fix" }),
      f("d", "null-deref", { status: "dismissed" }),
      f("e", "sql-injection", { status: "resolved", closedBy: "fix" }),
      f("g", "new-rule", {}),
    ]);
    expect(tallyByRule(outcomes)).toEqual([
      { rule: "style-nit", accepted: 0, rejected: 2, pending: 0, acceptance: 0 },
      { rule: "null-deref", accepted: 1, rejected: 1, pending: 0, acceptance: 0.5 },
      { rule: "sql-injection", accepted: 1, rejected: 0, pending: 0, acceptance: 1 },
      { rule: "new-rule", accepted: 0, rejected: 0, pending: 1, acceptance: null },
    ]);
  });
});

describe("boundSamples", () => {
  const c = (login: string, body: string, type = "User"): RawReviewComment => ({ user: { login, type }, body, path: "src/a.ts", diff_hunk: "@@ -1 +1 @@\n-a\n+b" });
  const long = "Please handle the error case here, the caller assumes success.";

  it("skips bots and trivial comments, caps per reviewer, per total, and clips text", () => {
    const byPull = [
      { pull: 1, comments: [c("alice", long), c("dependabot[bot]", long, "Bot"), c("open-swe", long), c("bob", "LGTM"), c("alice", long), c("alice", long)] },
      { pull: 2, comments: [c("bob", `${long} ${"x".repeat(100)}`), c("carol", long), c("dave", long)] },
    ];
    const out = boundSamples(byPull, { maxPulls: 5, maxPerReviewer: 2, maxComments: 4, maxChars: 80 }, ["open-swe[bot]"]);
    expect(out.map((s) => `${s.pull}:${s.reviewer}`)).toEqual(["1:alice", "1:alice", "2:bob", "2:carol"]);
    expect(out[2]!.body.length).toBe(81);
    expect(out[2]!.body.endsWith("…")).toBe(true);
  });

  it("looks at no more than maxPulls pulls", () => {
    const byPull = [1, 2, 3].map((pull) => ({ pull, comments: [c(`u${pull}`, long)] }));
    expect(boundSamples(byPull, { maxPulls: 2, maxPerReviewer: 5, maxComments: 50, maxChars: 500 }, []).map((s) => s.pull)).toEqual([1, 2]);
  });
});
