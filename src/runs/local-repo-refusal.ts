import { errorMessage } from "../errors.js";

/**
 * Why git would not read the working copy `label` (pure): the real reason from git's error, never a
 * guess. A repository owned by another user is refused by git's `safe.directory` check; the host's git
 * reads no global config, so the way out is to run as its owner (or pass owner/name).
 */
export function localRepoRefusal(label: string, err: unknown): string {
  const text = errorMessage(err);
  if (/dubious ownership/i.test(text))
    return `${label} is owned by another user and git refuses to read it ("dubious ownership", git's safe.directory check): run open-swe as the repository's owner, or pass owner/name`;
  if (/not a git repository/i.test(text)) return `${label} is not a git repository (run \`git init\` and commit there, or pass owner/name)`;
  if (/ambiguous argument 'HEAD'|unknown revision|Needed a single revision/i.test(text)) return `${label} has no commit yet (commit there first: the agent works on the last commit)`;
  const reason =
    text
      .split("\n")
      .map((l) => l.trim())
      .find((l) => /^fatal: /.test(l))
      ?.slice("fatal: ".length) ?? text.split("\n")[0];
  return `git cannot read ${label}: ${reason}`;
}
