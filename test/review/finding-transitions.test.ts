import { describe, expect, it } from "vitest";
import { findingTransitions, type FindingWas } from "../../src/review/finding-transitions.js";
import type { Finding } from "../../src/review/findings.js";

const f = (id: string, status: Finding["status"], closedBy?: Finding["closedBy"]): Finding => ({
  id,
  fingerprint: `fp-${id}`,
  path: "src/a.ts",
  line: 1,
  side: "RIGHT",
  headSha: "abc",
  severity: "medium",
  title: "t",
  body: "b",
  rule: "r",
  status,
  ...(closedBy ? { closedBy } : {}),
});
const was = (entries: [string, FindingWas][]) => new Map(entries);

describe("findingTransitions", () => {
  it.each([
    ["new findings are raised", was([]), [f("a", "open"), f("b", "open")], { raised: 2, fixed: 0, dismissed: 0 }],
    ["unchanged open ones count nothing", was([["a", { status: "open" }]]), [f("a", "open")], { raised: 0, fixed: 0, dismissed: 0 }],
    ["open → resolved by the fix", was([["a", { status: "open" }]]), [f("a", "resolved", "fix")], { raised: 0, fixed: 1, dismissed: 0 }],
    ["open → resolved by a person is a dismissal", was([["a", { status: "open" }]]), [f("a", "resolved", "human")], { raised: 0, fixed: 0, dismissed: 1 }],
    ["open → dismissed", was([["a", { status: "open" }]]), [f("a", "dismissed", "human")], { raised: 0, fixed: 0, dismissed: 1 }],
    [
      "already closed: written again, not counted again",
      was([
        ["a", { status: "resolved", closedBy: "fix" }],
        ["b", { status: "dismissed" }],
      ]),
      [f("a", "resolved", "fix"), f("b", "dismissed")],
      { raised: 0, fixed: 0, dismissed: 0 },
    ],
    ["a finding dropped from the set counts nothing", was([["a", { status: "open" }]]), [], { raised: 0, fixed: 0, dismissed: 0 }],
  ])("%s", (_, before, after, want) => expect(findingTransitions(before, after)).toEqual(want));
});
