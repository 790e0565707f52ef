import { REPO_CONFIG_PATH, type RepoConfigError } from "../config/repo-config.js";
import type { Octokit } from "./app-auth.js";
import { postCompletedCheckRun } from "../shared/check-runs.js";
import { replyTo, type ReplyTarget } from "./reply.js";

/**
 * A broken `.github/open-swe.yml` must be seen: a failing "Open SWE config" check on the head commit
 * when there is one, else a reply where the request was made.
 */
export async function reportConfigError(octokit: Octokit, err: RepoConfigError, target: ReplyTarget & { headSha?: string | undefined }): Promise<void> {
  const text = `I could not use \`${REPO_CONFIG_PATH}\`: ${err.message}.\n\n${err.details}\n\nFix the file on the default branch and ask again.`;
  if (target.headSha) {
    await postCompletedCheckRun(octokit, { owner: target.owner, repo: target.repo, headSha: target.headSha }, "Open SWE config", "failure", { title: `${REPO_CONFIG_PATH} is invalid`, summary: text });
    return;
  }
  await replyTo(octokit, target, text);
}
