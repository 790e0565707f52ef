import { describe, expect, it } from "vitest";
import { needsWriteAccess, priorDecisionText } from "../../src/approvals/handle-approval.js";
import { approvalInScope } from "../../src/dashboard/approvals-routes.js";
import { ageText } from "../../src/dashboard/views/badges.js";

describe("approval decisions", () => {
  it.each([
    ["dana", "dana", false],
    ["Dana", "dana", false],
    ["erin", "dana", true],
    ["dana-bot", "dana", true],
  ])("needsWriteAccess(%s, requester %s) = %s", (login, requester, want) => expect(needsWriteAccess(login, requester)).toBe(want));

  const session = { repos: ["octo/hello"], installations: { "octo/hello": 4242 } };
  it.each([
    ["a writable repo of its installation", { owner: "octo", repo: "hello", installationId: 4242 }, true],
    ["the same repo, other case", { owner: "Octo", repo: "Hello", installationId: 4242 }, true],
    ["a repo the viewer cannot write", { owner: "octo", repo: "secret", installationId: 4242 }, false],
    ["the same name under another installation", { owner: "octo", repo: "hello", installationId: 9999 }, false],
    ["a prefix of a writable repo", { owner: "octo", repo: "hell", installationId: 4242 }, false],
  ])("approvalInScope: %s → %s", (_name, job, want) => expect(approvalInScope(session, job)).toBe(want));

  it.each([
    [null, "decided"],
    [{ decision: "approve" as const, by: "erin", how: "person" as const, resolvedAt: 1, latencyMs: 0 }, "approved by @erin"],
    [{ decision: "reject" as const, by: "dana", how: "person" as const, resolvedAt: 1, latencyMs: 0 }, "denied by @dana"],
    [{ decision: "reject" as const, by: null, how: "timeout" as const, resolvedAt: 1, latencyMs: 0 }, "denied automatically when it timed out"],
  ])("priorDecisionText(%j) = %s", (prior, want) => expect(priorDecisionText(prior)).toBe(want));

  it.each([
    [-5, "just now"],
    [59_999, "just now"],
    [60_000, "1 min"],
    [59 * 60_000, "59 min"],
    [60 * 60_000, "1 h"],
    [125 * 60_000, "2 h 5 min"],
    [49 * 3_600_000, "2 d"],
  ])("ageText(%i) = %s", (ms, want) => expect(ageText(ms)).toBe(want));
});
