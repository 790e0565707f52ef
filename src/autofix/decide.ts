export type AutofixTrigger = "ci" | "review_feedback" | "merge_conflict";

export interface AutofixInput {
  trigger: AutofixTrigger;
  /** `@open-swe fix ci` from a writer: bypasses the fork rule, the opt-in and the human-commit rule. */
  manual?: boolean;
  repoEnabled: boolean;
  /**
   * `headInBase`: the head branch is in this repository (not a fork's: the agent never pushed there).
   * `headCommitAuthor`: the head commit's GitHub login; null when GitHub names no account (a person's email).
   */
  pr: { open: boolean; headSha: string; baseSha: string; headInBase: boolean; headCommitAuthor: string | null } | null;
  /** `@open-swe autofix on|off` on this PR; null = never said. */
  prToggle: boolean | null;
  /** `.github/open-swe.yml` `autofix.default`. */
  repoDefault: boolean;
  thread: { id: string; requester: string; active: boolean } | null;
  /** The requester's profile flag. */
  requesterAutoFixCi: boolean;
  attempts: { total: number; onHead: number };
  /** `autofix.max_attempts` (total per PR). */
  maxAttempts: number;
  /** Failing check/status names on the head; null = CI could not be read. */
  failing: string[] | null;
  /** Checks on the head not finished yet. */
  pending: string[];
  /** Names failing on the base sha. */
  failingOnBase: string[];
  /** Head sha + sorted failing names (or review id / "conflict"). */
  fingerprint: string;
  /** Fingerprints already dispatched. */
  handled: string[];
  /** Our bot and the configured bots. */
  botLogins: string[];
  /** review_feedback only. */
  reviewerCanWrite?: boolean;
}

export type AutofixReason =
  | "repo_not_enabled"
  | "no_open_pr"
  | "fork_head"
  | "pr_disabled"
  | "no_agent_thread"
  | "autofix_disabled_user"
  | "reviewer_no_write_permission"
  | "max_attempts"
  | "ci_read_failed"
  | "checks_pending"
  | "no_failing_checks"
  | "all_failing_on_base"
  | "already_handled"
  | "human_commit"
  | "batched"
  | "dispatched";

export type AutofixDecision = { action: "dispatch" | "batch" | "wait" | "skip"; reason: AutofixReason };

const skip = (reason: AutofixReason): AutofixDecision => ({ action: "skip", reason });
const lower = (s: string) => s.toLowerCase();

/** Pure: whether a red CI / review / conflict on a PR becomes a fix run. The first rule that applies decides. */
export function decideAutofix(input: AutofixInput): AutofixDecision {
  const { pr, thread } = input;
  const ci = input.trigger === "ci";
  if (!input.repoEnabled) return skip("repo_not_enabled");
  if (!pr || !pr.open) return skip("no_open_pr");
  if (!input.manual && !pr.headInBase) return skip("fork_head");
  if (input.prToggle === false) return skip("pr_disabled");
  if (!thread) return skip("no_agent_thread");
  if (!input.manual && input.prToggle === null && !input.requesterAutoFixCi && !input.repoDefault) return skip("autofix_disabled_user");
  if (input.trigger === "review_feedback" && input.reviewerCanWrite !== true) return skip("reviewer_no_write_permission");
  if (input.attempts.total >= input.maxAttempts || (ci && input.attempts.onHead >= 1)) return skip("max_attempts");
  if (ci && input.failing === null) return skip("ci_read_failed");
  if (ci && input.pending.length > 0) return { action: "wait", reason: "checks_pending" };
  if (ci && input.failing !== null && input.failing.length === 0) return skip("no_failing_checks");
  if (ci && input.failing !== null && input.failing.every((name) => input.failingOnBase.includes(name))) return skip("all_failing_on_base");
  if (input.handled.includes(input.fingerprint)) return skip("already_handled");
  // An author GitHub cannot name (a commit email with no account) is a person's commit like any other.
  const author = pr.headCommitAuthor;
  if (!input.manual && (author === null || (!input.botLogins.map(lower).includes(lower(author)) && lower(author) !== lower(thread.requester)))) {
    return skip("human_commit");
  }
  if (thread.active) return { action: "batch", reason: "batched" };
  return { action: "dispatch", reason: "dispatched" };
}

/** Head sha + sorted failing names: the same red on the same head is handled once, whoever reports it. */
export function ciFingerprint(headSha: string, failing: string[]): string {
  return `${headSha}:${[...new Set(failing)].sort().join(",")}`;
}

/** A conflict is handled once per head and base: a new push or a moved base is a new conflict. */
export function conflictFingerprint(headSha: string, baseSha: string): string {
  return `conflict:${headSha}:${baseSha}`;
}
