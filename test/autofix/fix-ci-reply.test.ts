import { describe, expect, it } from "vitest";
import type { AutofixReason } from "../../src/autofix/decide.js";
import { fixCiReply } from "../../src/autofix/fix-ci-reply.js";

const ALL: AutofixReason[] = [
  "repo_not_enabled", "no_open_pr", "pr_disabled", "no_agent_thread", "autofix_disabled_user", "reviewer_no_write_permission", "max_attempts",
  "ci_read_failed", "checks_pending", "no_failing_checks", "all_failing_on_base", "already_handled", "human_commit", "batched", "dispatched",
];

describe("fixCiReply", () => {
  it.each(["dispatched", "batched"] as const)("%s: the run answers for itself", (reason) => expect(fixCiReply(reason, {})).toBeNull());
  it.each(ALL.filter((r) => r !== "dispatched" && r !== "batched"))("%s gets a sentence", (reason) => {
    expect(fixCiReply(reason, {})).toMatch(/\w.*[.)]$/);
  });
  it("names the checks still running", () => {
    expect(fixCiReply("checks_pending", { pending: ["e2e", "build"] })).toBe("Some checks are still running (e2e, build); ask again once they have finished.");
  });
  it("says how to turn a disabled PR back on", () => expect(fixCiReply("pr_disabled", {})).toMatch(/`@open-swe autofix on`/));
});
