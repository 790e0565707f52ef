/** The answer to `@open-swe autofix on|off`: what the choice now does on this PR, honestly. */
export function autofixToggleReply(enabled: boolean, agentThread: boolean): string {
  if (!enabled) return "CI autofix is **off** for this pull request: I will not try to fix its failing checks.";
  if (!agentThread) {
    return "Saved: CI autofix **on** for this pull request. I fix failing checks only on pull requests I opened, and I have no record of opening this one, so nothing will happen when its checks fail.";
  }
  return "CI autofix is **on** for this pull request: when one of its checks fails, I try to fix it on the branch (once per head commit, up to `autofix.max_attempts` runs per pull request, and not after someone else pushes to the branch).";
}
