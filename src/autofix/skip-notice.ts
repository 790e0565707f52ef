import type { AutofixReason } from "./decide.js";

export const AUTOFIX_CHECK_NAME = "Open SWE Autofix";

export interface SkipFacts {
  attempts: { total: number; onHead: number };
  maxAttempts: number;
  headCommitAuthor: string | null;
  failing: string[];
}

/**
 * Pure: the neutral "Open SWE Autofix" check for a skip a person can change (toggle, cap, someone's
 * commit, a red base), and whether the cap's one comment is due; null for skips nobody needs to see
 * (including a second red check on a head that already has its fix run).
 */
export function skipNotice(reason: AutofixReason, f: SkipFacts): { title: string; summary: string; capReached: boolean } | null {
  switch (reason) {
    case "pr_disabled":
      return { title: "Autofix is off", summary: "CI autofix is off for this pull request. `@open-swe autofix on` turns it back on.", capReached: false };
    case "max_attempts":
      if (f.attempts.total >= f.maxAttempts) {
        return {
          title: "Autofix limit reached",
          summary: `${f.attempts.total} fix runs on this pull request reached \`autofix.max_attempts\` (${f.maxAttempts}) and CI is still red: a human is needed.`,
          capReached: true,
        };
      }
      // One run per head already made (often for a sibling check of the same push): it is the visible one.
      return null;
    case "human_commit":
      return {
        title: "Autofix stands back",
        summary: `The head commit is by ${f.headCommitAuthor ? `@${f.headCommitAuthor}` : "an author with no GitHub account"}, not by Open SWE or the requester: while a person works on the branch, autofix keeps its hands off.`,
        capReached: false,
      };
    case "all_failing_on_base":
      return { title: "Failing on the base too", summary: `Every failing check (${f.failing.join(", ")}) also fails on the base commit, so this branch did not break it.`, capReached: false };
    default:
      return null;
  }
}

export const CAP_COMMENT = (n: number) =>
  `CI autofix limit reached — a human is needed. I made ${n} fix ${n === 1 ? "run" : "runs"} on this pull request (\`autofix.max_attempts\`) and its checks are still failing, so I have stopped.`;
