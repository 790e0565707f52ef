/** Conclusions that mean "CI is red and someone may want it fixed"; cancelled/skipped/neutral are not. */
const FAILING = new Set(["failure", "timed_out", "startup_failure", "action_required"]);

export function isFailingConclusion(conclusion: string | null | undefined): boolean {
  return conclusion !== null && conclusion !== undefined && FAILING.has(conclusion);
}

export function isFailingStatus(state: string): boolean {
  return state === "failure" || state === "error";
}
