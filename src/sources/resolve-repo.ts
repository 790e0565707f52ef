import { isRepoName } from "../shared/repo-name.js";

export type RepoVia = "text" | "thread" | "default";

/** Slack wraps links as `<https://…|label>`; the URL part is what counts. */
const REPO_TOKEN = /(?:^|[\s(<])repo:([A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9_.-]+)/;
const GITHUB_URL = /https?:\/\/(?:www\.)?github\.com\/([A-Za-z0-9][A-Za-z0-9-]*)\/([A-Za-z0-9_.-]+)/;

/** The repository a message names: `repo:owner/name`, else the first github.com URL (`.git` and paths dropped). */
export function repoFromText(text: string): string | null {
  const token = REPO_TOKEN.exec(text)?.[1]?.replace(/\.+$/, "");
  if (token && isRepoName(token)) return token.toLowerCase();
  const url = GITHUB_URL.exec(text);
  if (url) {
    const name = `${url[1]}/${url[2]!.replace(/\.git$/, "").replace(/\.+$/, "")}`;
    if (isRepoName(name)) return name.toLowerCase();
  }
  return null;
}

/**
 * Which repository a source request is about, in order: named in the text › the thread's remembered
 * repository › the channel's / team's default. `null`: nobody said, so the worker asks once.
 */
export function chooseRepo(facts: { text: string; remembered: string | null; channelDefault: string | null }): { repo: string; via: RepoVia } | null {
  const named = repoFromText(facts.text);
  if (named) return { repo: named, via: "text" };
  if (facts.remembered) return { repo: facts.remembered.toLowerCase(), via: "thread" };
  if (facts.channelDefault) return { repo: facts.channelDefault.toLowerCase(), via: "default" };
  return null;
}
