const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const NAME = /^[A-Za-z0-9_.-]{1,100}$/;

/** `owner/name` as GitHub allows it: no path segments (`.`, `..`), no slashes beyond the one. */
export function isRepoName(s: string): boolean {
  const parts = s.split("/");
  return parts.length === 2 && OWNER.test(parts[0]!) && NAME.test(parts[1]!) && parts[1] !== "." && parts[1] !== "..";
}

/** The refusal for a value that is not `owner/name`, echoing it. */
export function repoNameError(s: string): string {
  return `"${s}" is not a repository name: expected owner/name (the owner: letters, digits and -, the name: letters, digits and _ . -)`;
}
