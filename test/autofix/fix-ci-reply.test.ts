import { describe, expect, it } from "vitest";
import type { AutofixReason } from "../../src/autofix/decide.js";
import { fixCiReply } from "../../src/autofix/fix-ci-reply.js";

const ALL: AutofixReason[] = [
  "repo_not_enabled",
  "no_open_pr",
  "fork_head",
  "pr_disabled",
  "no_agent_thread",
  "autofix_disabled_user",
  "reviewer_no_write_permission",
  "max_attempts",
  "ci_read_failed",
  "checks_pending",
  "no_failing_checks",
  "all_failing_on_base",
  "already_handled",
  "human_commit",
  "batched",
  "dispatched",
];

describe("fixCiReply", () => {
  it.each(["dispatched", "batched"] as const)("%s: the run answers for itself", (reason) => expect(fixCiReply(reason, {})).toBeNull());
  // The sentence itself, per reason: a reply swapped for another reason's (or any sentence) goes red.
  const SENTENCES: Record<Exclude<AutofixReason, "dispatched" | "batched" | "checks_pending">, string> = {
    repo_not_enabled: "I can't fix CI here: this repository is not enabled for Open SWE (an operator enables it with `open-swe settings repos enable owner/repo`).",
    no_open_pr: "I can't fix CI here: this pull request is not open.",
    pr_disabled: "CI autofix is **off** for this pull request, so I have not started a fix run. `@open-swe autofix on` turns it back on.",
    fork_head: "I have not started a fix run (fork_head).",
    no_agent_thread: "I have not started a fix run (no_agent_thread).",
    autofix_disabled_user: "I have not started a fix run (autofix_disabled_user).",
    human_commit: "I have not started a fix run (human_commit).",
    reviewer_no_write_permission: "I have not started a fix run (reviewer_no_write_permission).",
    max_attempts: "I have not started a fix run: this head commit already had one, or this pull request reached `autofix.max_attempts`. Push a change, or raise the limit in `.github/open-swe.yml`.",
    ci_read_failed: "I could not read this pull request's checks from GitHub, so I have not started a fix run. Please ask again in a few minutes.",
    no_failing_checks: "No check is failing on this pull request's head commit, so there is nothing to fix.",
    all_failing_on_base: "Every failing check also fails on the base commit, so this branch did not break it; I have not started a fix run.",
    already_handled: "A fix run for exactly these failures on this commit was already started.",
  };
  it.each(Object.entries(SENTENCES))("%s: its own sentence", (reason, sentence) => expect(fixCiReply(reason as AutofixReason, {})).toBe(sentence));
  it("covers every reason", () =>
    expect([...Object.keys(SENTENCES), "dispatched", "batched", "checks_pending"].sort()).toEqual([...ALL, "checks_pending"].filter((r, i, a) => a.indexOf(r) === i).sort()));
  it("names the checks still running", () => {
    expect(fixCiReply("checks_pending", { pending: ["e2e", "build"] })).toBe("Some checks are still running (e2e, build); ask again once they have finished.");
  });
  it("says how to turn a disabled PR back on", () => expect(fixCiReply("pr_disabled", {})).toMatch(/`@open-swe autofix on`/));
});
