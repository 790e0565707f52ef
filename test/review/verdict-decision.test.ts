import { describe, expect, it } from "vitest";
import { decideVerdict, isSelfReview, type VerdictDecision, type VerdictInput } from "../../src/review/verdict-decision.js";

const base: VerdictInput = { requested: null, verdictAuthorized: false, prAuthor: "alice", botLogins: ["open-swe[bot]", "internal-ci-bot"], hasBlockingFindings: false };

type Row = [string, Partial<VerdictInput>, ReviewExpect];
type ReviewExpect = { event: VerdictDecision["event"]; note?: RegExp; dismiss?: number };

const matrix: Row[] = [
  ["auto-review, no verdict asked", {}, { event: "COMMENT" }],
  ["auto-review, model asks to approve", { requested: "approve" }, { event: "COMMENT", note: /not authorized/ }],
  ["auto-review, model asks for changes", { requested: "request_changes", hasBlockingFindings: true }, { event: "COMMENT", note: /not authorized/ }],
  ["explicit writer request, approve, clean", { requested: "approve", verdictAuthorized: true }, { event: "APPROVE" }],
  ["explicit writer request, request changes", { requested: "request_changes", verdictAuthorized: true, hasBlockingFindings: true }, { event: "REQUEST_CHANGES" }],
  ["explicit writer request, approve but findings open", { requested: "approve", verdictAuthorized: true, hasBlockingFindings: true }, { event: "COMMENT", note: /Not approving/ }],
  ["explicit request from a non-writer (not authorized)", { requested: "approve", verdictAuthorized: false }, { event: "COMMENT", note: /not authorized/ }],
  ["explicit request, writer, no verdict asked by the model", { requested: null, verdictAuthorized: true }, { event: "COMMENT" }],
  ["self-review by our app bot", { requested: "approve", verdictAuthorized: true, prAuthor: "open-swe[bot]" }, { event: "COMMENT", note: /bot of ours/ }],
  ["self-review by our app bot, login without [bot]", { requested: "request_changes", verdictAuthorized: true, prAuthor: "Open-SWE" }, { event: "COMMENT", note: /bot of ours/ }],
  ["self-review by a listed internal bot", { requested: "approve", verdictAuthorized: true, prAuthor: "internal-ci-bot" }, { event: "COMMENT", note: /bot of ours/ }],
  ["a human whose login merely contains a bot name", { requested: "approve", verdictAuthorized: true, prAuthor: "open-swe-fan" }, { event: "APPROVE" }],
  ["stale approve + new findings on an auto pass → dismissed", { hasBlockingFindings: true, previousApprovalReviewId: 77 }, { event: "COMMENT", dismiss: 77 }],
  [
    "stale approve + new findings + explicit request changes → dismissed",
    { requested: "request_changes", verdictAuthorized: true, hasBlockingFindings: true, previousApprovalReviewId: 77 },
    { event: "REQUEST_CHANGES", dismiss: 77 },
  ],
  ["standing approve, nothing new → kept", { previousApprovalReviewId: 77 }, { event: "COMMENT" }],
  ["standing approve, approved again → kept", { requested: "approve", verdictAuthorized: true, previousApprovalReviewId: 77 }, { event: "APPROVE" }],
  ["standing approve, old findings still open but nothing new → kept", { hasBlockingFindings: true, hasNewFindings: false, previousApprovalReviewId: 77 }, { event: "COMMENT" }],
  [
    "explicit approve while old findings stay open → not approved",
    { requested: "approve", verdictAuthorized: true, hasBlockingFindings: true, hasNewFindings: false },
    { event: "COMMENT", note: /Not approving/ },
  ],
  ["no previous approval (null) + findings → nothing to dismiss", { hasBlockingFindings: true, previousApprovalReviewId: null }, { event: "COMMENT" }],
];

describe("decideVerdict", () => {
  it.each(matrix)("%s", (_name, patch, want) => {
    const d = decideVerdict({ ...base, ...patch });
    expect(d.event).toBe(want.event);
    if (want.note) expect(d.note).toMatch(want.note);
    else expect(d.note).toBeUndefined();
    expect(d.dismissReviewId).toBe(want.dismiss);
  });

  it("matches bot logins case-insensitively with or without the [bot] suffix", () => {
    expect(isSelfReview("OPEN-SWE[bot]", ["open-swe"])).toBe(true);
    expect(isSelfReview("alice", ["open-swe"])).toBe(false);
    expect(isSelfReview("alice", [])).toBe(false);
  });
});
