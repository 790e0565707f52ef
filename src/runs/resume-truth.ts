const short = (sha: string) => sha.slice(0, 12);

/**
 * Pure: what a run resumed from its checkpoint in a new sandbox (its worker died, the sandbox stayed with
 * it) reads before its next model call: what was lost and what the workspace holds now.
 */
export function lostWorkspaceResumeNote(o: { branch: string; baseBranch: string; pushedSha: string | undefined }): string {
  const holds = o.pushedSha
    ? `The workspace was restored from the pushed branch \`${o.branch}\` at ${short(o.pushedSha)}: only what you pushed survived.`
    : `Nothing had been pushed yet, so the workspace holds \`${o.branch}\` as it was cut from \`${o.baseBranch}\`.`;
  return [
    "Note: this run was resumed in a new sandbox after the worker running it stopped.",
    "Everything not pushed before that was lost: uncommitted changes and files you wrote or edited earlier in this conversation may no longer exist.",
    holds,
    "Check with `git status` and `git log` before going on, redo what is missing, and push it before you reply; do not report work that is not on the branch.",
  ].join(" ");
}

/**
 * Pure: the line the final reply of such a run leads with, from what it actually pushed after the
 * resume (the run state's pushed sha at the start of this attempt and at its end), not from the model's words.
 */
export function resumedRunFacts(o: { branch: string; pushedAtStart: string | undefined; pushedAtEnd: string | undefined; prUrl: string | undefined }): string {
  const lead = "Note: this run was resumed in a new sandbox after its worker stopped, and the uncommitted work of the earlier attempt was lost.";
  if (o.pushedAtEnd && o.pushedAtEnd !== o.pushedAtStart) return `${lead} After the resume it pushed \`${o.branch}\` to ${short(o.pushedAtEnd)}${o.prUrl ? ` (${o.prUrl})` : ""}.`;
  const before = o.pushedAtStart
    ? `\`${o.branch}\` has only what was pushed before the worker stopped (${short(o.pushedAtStart)})`
    : `nothing was pushed at all, so \`${o.branch}\` has none of the changes`;
  return `${lead} Nothing was pushed after the resume: ${before}. Whatever the reply says was done and is not on the branch was not done.`;
}

/** Pure: the reply's note for a run that found its thread's sandbox gone (`gone`) or broken read-only (`read_only`). */
export function lostWorkspaceReplyNote(reason: "gone" | "read_only" | undefined): string {
  return reason === "read_only"
    ? "Note: this thread's previous sandbox had a read-only filesystem (EROFS: its disk failed), so it was replaced with a new one; uncommitted work from the earlier run was lost."
    : "Note: this thread's previous sandbox was gone; uncommitted work from the earlier run was lost.";
}
