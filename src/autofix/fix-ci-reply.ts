import type { AutofixReason } from "./decide.js";

/**
 * Pure: the answer to `@open-swe fix ci` when no run starts (a started run answers for itself: null).
 * Every reason `decideAutofix` can give has its sentence.
 */
export function fixCiReply(reason: AutofixReason, facts: { pending?: unknown }): string | null {
  const pending = Array.isArray(facts.pending) ? facts.pending.join(", ") : "";
  switch (reason) {
    case "dispatched":
    case "batched":
      return null;
    case "repo_not_enabled":
      return "I can't fix CI here: this repository is not enabled for Open SWE (an operator enables it with `open-swe settings repos enable owner/repo`).";
    case "no_open_pr":
      return "I can't fix CI here: this pull request is not open.";
    case "pr_disabled":
      return "CI autofix is **off** for this pull request, so I have not started a fix run. `@open-swe autofix on` turns it back on.";
    case "fork_head":
    case "no_agent_thread":
    case "autofix_disabled_user":
    case "human_commit":
    case "reviewer_no_write_permission":
      // A manual request bypasses or never meets these; said plainly if one ever applies.
      return `I have not started a fix run (${reason}).`;
    case "max_attempts":
      return "I have not started a fix run: this head commit already had one, or this pull request reached `autofix.max_attempts`. Push a change, or raise the limit in `.github/open-swe.yml`.";
    case "ci_read_failed":
      return "I could not read this pull request's checks from GitHub, so I have not started a fix run. Please ask again in a few minutes.";
    case "checks_pending":
      return `Some checks are still running (${pending}); ask again once they have finished.`;
    case "no_failing_checks":
      return "No check is failing on this pull request's head commit, so there is nothing to fix.";
    case "all_failing_on_base":
      return "Every failing check also fails on the base commit, so this branch did not break it; I have not started a fix run.";
    case "already_handled":
      return "A fix run for exactly these failures on this commit was already started.";
  }
}
