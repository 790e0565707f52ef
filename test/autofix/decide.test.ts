import { describe, expect, it } from "vitest";
import { ciFingerprint, decideAutofix, type AutofixInput, type AutofixReason } from "../../src/autofix/decide.js";

const HEAD = "a".repeat(40);
const base = (): AutofixInput => ({
  trigger: "ci",
  repoEnabled: true,
  pr: { open: true, headSha: HEAD, baseSha: "b".repeat(40), headInBase: true, headCommitAuthor: "open-swe[bot]" },
  prToggle: null,
  repoDefault: false,
  thread: { id: "t1", requester: "alice", active: false },
  requesterAutoFixCi: true,
  attempts: { total: 0, onHead: 0 },
  maxAttempts: 3,
  failing: ["lint"],
  pending: [],
  failingOnBase: [],
  fingerprint: ciFingerprint(HEAD, ["lint"]),
  handled: [],
  botLogins: ["open-swe[bot]"],
});

type Mutate = (i: AutofixInput) => AutofixInput;
/** One change per rule that makes exactly that rule apply to the dispatching base input, in rule order. */
const RULES: [AutofixReason, AutofixInput["trigger"] | "any", Mutate][] = [
  ["repo_not_enabled", "any", (i) => ({ ...i, repoEnabled: false })],
  ["no_open_pr", "any", (i) => ({ ...i, pr: i.pr && { ...i.pr, open: false } })],
  ["fork_head", "any", (i) => ({ ...i, pr: i.pr && { ...i.pr, headInBase: false } })],
  ["pr_disabled", "any", (i) => ({ ...i, prToggle: false })],
  ["no_agent_thread", "any", (i) => ({ ...i, thread: null })],
  ["autofix_disabled_user", "any", (i) => ({ ...i, requesterAutoFixCi: false })],
  ["reviewer_no_write_permission", "review_feedback", (i) => ({ ...i, trigger: "review_feedback", reviewerCanWrite: false })],
  ["max_attempts", "any", (i) => ({ ...i, attempts: { ...i.attempts, total: 3 } })],
  ["ci_read_failed", "ci", (i) => ({ ...i, failing: null })],
  ["checks_pending", "ci", (i) => ({ ...i, pending: ["build"] })],
  ["no_failing_checks", "ci", (i) => ({ ...i, failing: i.failing && [] })],
  ["all_failing_on_base", "ci", (i) => ({ ...i, failingOnBase: ["lint"] })],
  ["already_handled", "any", (i) => ({ ...i, handled: [i.fingerprint] })],
  ["human_commit", "any", (i) => ({ ...i, pr: i.pr && { ...i.pr, headCommitAuthor: "carol" } })],
  ["batched", "any", (i) => ({ ...i, thread: i.thread && { ...i.thread, active: true } })],
];
const ACTION: Partial<Record<AutofixReason, string>> = { checks_pending: "wait", batched: "batch" };
const expected = (reason: AutofixReason) => ({ action: ACTION[reason] ?? "skip", reason });

describe("decideAutofix", () => {
  it("dispatches when nothing stops it", () => {
    expect(decideAutofix(base())).toEqual({ action: "dispatch", reason: "dispatched" });
  });

  it.each(RULES)("%s in isolation", (reason, _t, mutate) => {
    expect(decideAutofix(mutate(base()))).toEqual(expected(reason));
  });

  // The later rule's change is applied first, so where two rules touch the same field the earlier one's value wins.
  it.each(RULES.slice(0, -1).map((r, n) => [r[0], RULES[n + 1]![0], r[2], RULES[n + 1]![2]] as const))("%s comes before %s", (first, _second, mFirst, mSecond) => {
    expect(decideAutofix(mFirst(mSecond(base())))).toEqual(expected(first));
  });

  it("the last rule (batched) comes before dispatching", () => {
    expect(decideAutofix({ ...base(), thread: { id: "t1", requester: "alice", active: true } }).action).toBe("batch");
  });

  it.each([
    ["pr null", { pr: null }, "no_open_pr"],
    ["one attempt already on this head (CI)", { attempts: { total: 1, onHead: 1 } }, "max_attempts"],
    ["every failing name also red on base", { failing: ["lint", "test"], failingOnBase: ["test", "lint", "other"] }, "all_failing_on_base"],
    // Issue #42: a commit email with no GitHub account gives author null; that is a person, not the agent.
    ["a head author GitHub cannot name (null) is a person", { pr: { open: true, headSha: HEAD, baseSha: "b", headInBase: true, headCommitAuthor: null } }, "human_commit"],
    ["a fork's head, its commit by our bot", { pr: { open: true, headSha: HEAD, baseSha: "b", headInBase: false, headCommitAuthor: "open-swe[bot]" } }, "fork_head"],
    ["a fork's head, on a PR turned on with `autofix on`", { prToggle: true, pr: { open: true, headSha: HEAD, baseSha: "b", headInBase: false, headCommitAuthor: "open-swe[bot]" } }, "fork_head"],
  ] as const)("%s → %s", (_n, patch, reason) => {
    expect(decideAutofix({ ...base(), ...patch } as AutofixInput).reason).toBe(reason);
  });

  it.each([
    ["an explicit `autofix on` overrides both opt-ins off", { prToggle: true, requesterAutoFixCi: false, repoDefault: false }],
    ["the repo default opts in", { requesterAutoFixCi: false, repoDefault: true }],
    ["some failures are new on the head", { failing: ["lint", "test"], failingOnBase: ["test"] }],
    ["the requester's own commit", { pr: { open: true, headSha: HEAD, baseSha: "b", headInBase: true, headCommitAuthor: "Alice" } }],
    ["a configured bot's commit (any case)", { pr: { open: true, headSha: HEAD, baseSha: "b", headInBase: true, headCommitAuthor: "Open-SWE[bot]" } }],
    ["a different fingerprint was handled", { handled: [ciFingerprint(HEAD, ["test"])] }],
    ["under the cap", { attempts: { total: 2, onHead: 0 } }],
  ] as const)("dispatches: %s", (_n, patch) => {
    expect(decideAutofix({ ...base(), ...patch } as AutofixInput)).toEqual({ action: "dispatch", reason: "dispatched" });
  });

  describe("review feedback and conflicts skip the CI-only rules", () => {
    const ciless = { failing: null, pending: ["build"], attempts: { total: 0, onHead: 1 } };
    it("review feedback from a writer dispatches", () => {
      expect(decideAutofix({ ...base(), ...ciless, trigger: "review_feedback", reviewerCanWrite: true }).reason).toBe("dispatched");
    });
    it("review feedback with unknown permission is refused (fail closed)", () => {
      expect(decideAutofix({ ...base(), trigger: "review_feedback" }).reason).toBe("reviewer_no_write_permission");
    });
    it("a conflict dispatches regardless of CI and ignores reviewer permission", () => {
      expect(decideAutofix({ ...base(), ...ciless, trigger: "merge_conflict" }).reason).toBe("dispatched");
    });
  });

  describe("`fix ci` (manual)", () => {
    it("bypasses the opt-in and the human-commit rule", () => {
      const input = { ...base(), manual: true, requesterAutoFixCi: false, pr: { open: true, headSha: HEAD, baseSha: "b", headInBase: true, headCommitAuthor: "carol" } };
      expect(decideAutofix(input).reason).toBe("dispatched");
    });
    it.each([
      ["a fork's head (a writer asked for it)", { headInBase: false, headCommitAuthor: "mallory" }],
      ["a head author GitHub cannot name", { headInBase: true, headCommitAuthor: null }],
    ] as const)("acts on %s", (_n, patch) => {
      expect(decideAutofix({ ...base(), manual: true, pr: { open: true, headSha: HEAD, baseSha: "b", ...patch } }).reason).toBe("dispatched");
    });
    it.each([
      ["pr_disabled", { prToggle: false }],
      ["max_attempts", { attempts: { total: 3, onHead: 0 } }],
      ["already_handled", { handled: [ciFingerprint(HEAD, ["lint"])] }],
      ["all_failing_on_base", { failingOnBase: ["lint"] }],
    ] as const)("still stops at %s", (reason, patch) => {
      expect(decideAutofix({ ...base(), manual: true, ...patch } as AutofixInput).reason).toBe(reason);
    });
  });

  it("the fingerprint ignores order and repeats", () => {
    expect(ciFingerprint(HEAD, ["b", "a", "b"])).toBe(ciFingerprint(HEAD, ["a", "b"]));
    expect(ciFingerprint(HEAD, ["a"])).not.toBe(ciFingerprint("c".repeat(40), ["a"]));
  });
});
