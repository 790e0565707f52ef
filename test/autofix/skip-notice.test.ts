import { describe, expect, it } from "vitest";
import type { AutofixReason } from "../../src/autofix/decide.js";
import { CAP_COMMENT, skipNotice, type SkipFacts } from "../../src/autofix/skip-notice.js";

const facts: SkipFacts = { attempts: { total: 1, onHead: 1 }, maxAttempts: 3, headCommitAuthor: "carol", failing: ["lint", "test"] };

describe("skipNotice", () => {
  it.each([
    ["pr_disabled", "Autofix is off", /autofix on/],
    ["human_commit", "Autofix stands back", /@carol/],
    ["all_failing_on_base", "Failing on the base too", /\(lint, test\)/],
  ] as const)("%s → a neutral check titled %s", (reason, title, summary) => {
    const n = skipNotice(reason, facts);
    expect(n).toMatchObject({ title, capReached: false });
    expect(n?.summary).toMatch(summary);
  });

  it("a head commit GitHub names no account for is said as such, not as a login", () => {
    expect(skipNotice("human_commit", { ...facts, headCommitAuthor: null })?.summary).toMatch(/^The head commit is by an author with no GitHub account, not by Open SWE/);
  });

  it("the cap reached (total, not just this head) is the one that asks for a human", () => {
    const n = skipNotice("max_attempts", { ...facts, attempts: { total: 3, onHead: 0 } });
    expect(n).toMatchObject({ title: "Autofix limit reached", capReached: true });
    expect(n?.summary).toMatch(/3 fix runs .* \(3\) .*a human is needed/);
    expect(CAP_COMMENT(3)).toMatch(/^CI autofix limit reached — a human is needed\. I made 3 fix runs/);
    expect(CAP_COMMENT(1)).toMatch(/1 fix run on/);
  });

  it("a head that already had its fix run (under the cap) shows nothing more", () => {
    expect(skipNotice("max_attempts", facts)).toBeNull();
  });

  it.each<AutofixReason>([
    "repo_not_enabled",
    "no_open_pr",
    // Every red check on every fork PR would carry one: the job's outcome, the ledger and the log say it.
    "fork_head",
    "no_agent_thread",
    "autofix_disabled_user",
    "ci_read_failed",
    "checks_pending",
    "no_failing_checks",
    "already_handled",
    "batched",
    "dispatched",
  ])("%s shows nothing on the pull request", (reason) => expect(skipNotice(reason, facts)).toBeNull());
});
